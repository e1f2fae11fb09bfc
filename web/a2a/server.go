package a2a

import (
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/web/core"
)

// ProtocolVersion is the A2A version served.
const ProtocolVersion = "0.3.0"

// Prefix is where the agents' endpoints live: Prefix+"/AGENT".
const Prefix = "/a2a"

// CardPath is the well-known path of an agent card.
const CardPath = "/.well-known/agent-card.json"

// Agents is the live registry.
type Agents interface {
	Snapshot() *registry.Snapshot
}

// Store is what a call reads of the trace store while it waits (core.WatchStore).
type Store = core.WatchStore

// Config is what the server needs; all but Approvals, Version and Log
// are required.
type Config struct {
	Agents    Agents
	Expose    core.Exposure
	Runner    core.Runner
	Live      *core.Live
	Store     Store
	Approvals approval.Store // where asks wait: while one does, the task is input-required
	Version   string
	Log       *slog.Logger
}

// Server answers A2A for the exposed agents.
type Server struct {
	cfg Config

	mu       sync.Mutex
	handlers map[string]http.Handler // agent → its JSON-RPC handler
	runs     sync.Map                // task ID → core.Execution while it goes
}

// New is the A2A server of cfg's exposed agents.
func New(cfg Config) *Server {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Server{cfg: cfg, handlers: map[string]http.Handler{}}
}

// agent is the exposed agent named name.
func (s *Server) agent(name string) (registry.Agent, bool) {
	a, ok := s.cfg.Agents.Snapshot().Agent(name)
	if !ok || !s.cfg.Expose.ExposesAgent(a) {
		return registry.Agent{}, false
	}
	return a, true
}

// DefaultCard serves the card of the first exposed agent by name.
func (s *Server) DefaultCard(w http.ResponseWriter, r *http.Request) {
	exposed := s.cfg.Expose.ExposedAgents(s.cfg.Agents.Snapshot())
	if len(exposed) == 0 {
		http.Error(w, "no agent is exposed: list some under expose.agents in agentry.yaml", http.StatusNotFound)
		return
	}
	s.serveCard(w, r, exposed[0])
}

// Card serves agent name's card.
func (s *Server) Card(w http.ResponseWriter, r *http.Request, name string) {
	a, ok := s.agent(name)
	if !ok {
		http.Error(w, "there is no exposed agent "+name, http.StatusNotFound)
		return
	}
	s.serveCard(w, r, a)
}

func (s *Server) serveCard(w http.ResponseWriter, r *http.Request, a registry.Agent) {
	a2asrv.NewStaticAgentCardHandler(s.card(r, a)).ServeHTTP(w, r)
}

// card is agent a's card, its URL on the host r reached.
func (s *Server) card(r *http.Request, a registry.Agent) *a2a.AgentCard {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	name := a.Name
	if a.DisplayName != "" {
		name = a.DisplayName
	}
	return &a2a.AgentCard{
		Name: name, Description: a.Description, Version: s.cfg.Version, ProtocolVersion: ProtocolVersion,
		URL:                scheme + "://" + r.Host + Prefix + "/" + a.Name,
		PreferredTransport: a2a.TransportProtocolJSONRPC,
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:  []string{"text/plain", "application/json"},
		DefaultOutputModes: []string{"text/plain", "application/json"},
		Skills: []a2a.AgentSkill{{ID: a.Name, Name: name, Description: a.Description,
			Tags: append([]string{"agentry"}, strings.Fields(a.Model)...)}},
		SecuritySchemes: a2a.NamedSecuritySchemes{"bearer": a2a.HTTPAuthSecurityScheme{Scheme: "Bearer",
			Description: "serve's access token (--token, AGENTRY_TOKEN), when it has one"}},
	}
}

// Handle answers agent name's JSON-RPC endpoint.
func (s *Server) Handle(w http.ResponseWriter, r *http.Request, name string) {
	if _, ok := s.agent(name); !ok {
		http.Error(w, "there is no exposed agent "+name, http.StatusNotFound)
		return
	}
	s.mu.Lock()
	h, ok := s.handlers[name]
	if !ok {
		h = a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(&executor{s: s, agent: name}, a2asrv.WithLogger(s.cfg.Log)))
		s.handlers[name] = h
	}
	s.mu.Unlock()
	h.ServeHTTP(w, r)
}
