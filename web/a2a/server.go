package a2a

import (
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/web/core"
)

// ProtocolVersion is the A2A version served.
const ProtocolVersion = "0.3.0"

// Prefix is where the agents' endpoints live: Prefix+"/AGENT".
const Prefix = core.A2APrefix

// CardPath is the well-known path of an agent card.
const CardPath = core.A2ACardPath

// Config is what the server needs (core.Door): Workflows and
// WorkflowRunner, when set, serve the exposed workflows too, each at
// /a2a/workflow-NAME; Approvals, when set, is where asks wait, and while
// one does the task is input-required.
type Config = core.Door

// Server answers A2A for the exposed agents.
type Server struct {
	cfg Config

	mu       sync.Mutex
	handlers map[string]http.Handler // agent → its JSON-RPC handler
	runs     sync.Map                // task ID → core.Execution while it goes
	tasks    sync.Map                // run ID → its task's ID (byRunID), kept as the SDK keeps tasks
}

// started remembers task's run while it goes, and the task by its run's ID.
func (s *Server) started(task a2a.TaskID, ex core.Execution) {
	s.runs.Store(task, ex)
	s.tasks.Store(ex.RunID(), task)
}

// New is the A2A server of cfg's exposed agents.
func New(cfg Config) *Server {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Server{cfg: cfg, handlers: map[string]http.Handler{}}
}

// target is what /a2a/NAME serves: the exposed agent NAME, else the
// exposed workflow whose MCP tool is NAME (workflow-WORKFLOW); nil when
// neither is.
func (s *Server) target(r *http.Request, name string) *target {
	if a, ok := s.cfg.Agents.Snapshot().Agent(name); ok && s.cfg.Expose.ExposesAgent(a) {
		return s.agentTarget(r, a)
	}
	if flow, ok := strings.CutPrefix(name, core.WorkflowPrefix); ok {
		if wf, ok := s.cfg.ExposedWorkflow(flow); ok {
			return s.workflowTarget(r, wf)
		}
	}
	return nil
}

// target is one endpoint: its card and what runs a task.
type target struct {
	card *a2a.AgentCard
	exec *executor
}

// agentTarget is agent a's endpoint: its card, and a task per message
// whose first text part is the task and whose other parts its context.
func (s *Server) agentTarget(r *http.Request, a registry.Agent) *target {
	name := a.Name
	if a.DisplayName != "" {
		name = a.DisplayName
	}
	skill := a2a.AgentSkill{ID: a.Name, Name: name, Description: a.Description,
		Tags: append([]string{"agentry"}, strings.Fields(a.Model)...)}
	return &target{card: s.card(r, a.Name, name, a.Description, skill), exec: &executor{s: s,
		start: func(rc *a2asrv.RequestContext) (core.Execution, func(core.Outcome) ending, error) {
			task, extra, tp, err := input(rc)
			if err != nil {
				return nil, nil, err
			}
			ex, err := s.cfg.StartAgent(a.Name, task, extra, core.Caller{Protocol: "a2a"}, tp)
			return ex, agentEnding, err
		}}}
}

// DefaultCard serves the card of the first exposed agent by name (of the
// first exposed workflow when no agent is exposed); the error, a 404, is
// the caller's to answer (web's error handler, as the JSON API's errors).
func (s *Server) DefaultCard(w http.ResponseWriter, r *http.Request) error {
	if exposed := s.cfg.Expose.ExposedAgents(s.cfg.Agents.Snapshot()); len(exposed) > 0 {
		s.serveCard(w, r, s.agentTarget(r, exposed[0]))
		return nil
	}
	if flows := s.cfg.ExposedWorkflows(); len(flows) > 0 {
		s.serveCard(w, r, s.workflowTarget(r, flows[0]))
		return nil
	}
	return echo.NewHTTPError(http.StatusNotFound, "Nothing is exposed: list agents under expose.agents (workflows under expose.workflows) in agentry.yaml.")
}

// Card serves the card of the agent or workflow at /a2a/name; the error,
// a 404 naming what is not exposed, is the caller's to answer.
func (s *Server) Card(w http.ResponseWriter, r *http.Request, name string) error {
	t := s.target(r, name)
	if t == nil {
		return core.NotExposed(name)
	}
	s.serveCard(w, r, t)
	return nil
}

func (s *Server) serveCard(w http.ResponseWriter, r *http.Request, t *target) {
	a2asrv.NewStaticAgentCardHandler(t.card).ServeHTTP(w, r)
}

// card is the card of the endpoint /a2a/path, its URL on the host r reached.
func (s *Server) card(r *http.Request, path, name, description string, skill a2a.AgentSkill) *a2a.AgentCard {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return &a2a.AgentCard{
		Name: name, Description: description, Version: s.cfg.Version, ProtocolVersion: ProtocolVersion,
		URL:                scheme + "://" + r.Host + Prefix + "/" + path,
		PreferredTransport: a2a.TransportProtocolJSONRPC,
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:  []string{"text/plain", "application/json"},
		DefaultOutputModes: []string{"text/plain", "application/json"},
		Skills:             []a2a.AgentSkill{skill},
		SecuritySchemes: a2a.NamedSecuritySchemes{"bearer": a2a.HTTPAuthSecurityScheme{Scheme: "Bearer",
			Description: "serve's access token (--token, AGENTRY_TOKEN), when it has one"}},
	}
}

// Handle answers agent name's JSON-RPC endpoint; the error, a 404 naming
// what is not exposed, is the caller's to answer.
func (s *Server) Handle(w http.ResponseWriter, r *http.Request, name string) error {
	t := s.target(r, name)
	if t == nil {
		return core.NotExposed(name)
	}
	s.mu.Lock()
	h, ok := s.handlers[name]
	if !ok {
		h = a2asrv.NewJSONRPCHandler(byRunID{a2asrv.NewHandler(t.exec, a2asrv.WithLogger(s.cfg.Log)), s})
		s.handlers[name] = h
	}
	s.mu.Unlock()
	h.ServeHTTP(w, r)
	return nil
}
