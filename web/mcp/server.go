package mcp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/web/core"
)

// Agents is the live registry: its snapshot and a signal when it changes.
// *registry.Registry satisfies it.
type Agents interface {
	Snapshot() *registry.Snapshot
	Subscribe() (<-chan struct{}, func())
}

// Store is what a call reads of the trace store while it waits (core.WatchStore).
type Store = core.WatchStore

// Config is what the server needs. Agents, Runner, Live and Store are
// required.
type Config struct {
	Agents Agents
	// Expose says which agents are tools, and the permission level their
	// runs take; its zero value lists no tool.
	Expose core.Exposure
	// Runner starts the runs (the same Runner as the web's start form).
	Runner core.Runner
	// Live keeps the runs until they end, so the UI's Cancel reaches them.
	Live  *core.Live
	Store Store
	// Approvals, when set, is where a run's asks wait: a call asks the
	// client's user through elicitation when the client can.
	Approvals approval.Store
	// Version is agentry's version, sent as serverInfo.version.
	Version string
	Log     *slog.Logger
}

// Server is agentry's MCP server: one tool per exposed agent. It keeps
// its tool list in step with the registry until Close.
type Server struct {
	cfg  Config
	srv  *sdk.Server
	stop func()
	done chan struct{}

	mu    sync.Mutex
	tools map[string]string // listed tool → its description
}

// New builds the server and lists the exposed agents as tools.
func New(cfg Config) (*Server, error) {
	if cfg.Agents == nil || cfg.Runner == nil || cfg.Live == nil || cfg.Store == nil {
		return nil, errors.New("mcp server: Agents, Runner, Live and Store are required")
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, tools: map[string]string{}, done: make(chan struct{})}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "agentry", Title: "agentry agents", Version: cfg.Version}, &sdk.ServerOptions{
		Instructions: instructions,
		Logger:       quiet(cfg.Log),
		// Tools come and go with the agent files: say so even when none is exposed yet.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}},
	})
	changes, unsubscribe := cfg.Agents.Subscribe()
	s.sync()
	go func() {
		defer close(s.done)
		for range changes {
			s.sync()
		}
	}()
	s.stop = unsubscribe
	return s, nil
}

// instructions is what a client may show its model about this server.
const instructions = "Each tool is an agentry agent. Call it with a task (and optional context); " +
	"it runs under agentry's permissions, limits and approvals and answers with its result " +
	"and the run's ID (structuredContent.run_id), whose trace agentry's web UI shows."

// Close stops following the registry. Sessions end with their transports.
func (s *Server) Close() {
	s.stop()
	<-s.done
}

// Handler serves MCP's Streamable HTTP transport (serve's /mcp). The web
// server's own middleware checks the Host and the token, so the SDK's
// localhost check, which knows nothing of the token, is off.
func (s *Server) Handler() http.Handler {
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv },
		&sdk.StreamableHTTPOptions{Logger: quiet(s.cfg.Log), DisableLocalhostProtection: true})
}

// ServeStdio serves one client over in and out (`agentry mcp`) until the
// client goes away or ctx ends.
func (s *Server) ServeStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	return s.serve(ctx, &sdk.IOTransport{Reader: in, Writer: out})
}

// serve serves one client over t until it goes away or ctx ends.
func (s *Server) serve(ctx context.Context, t sdk.Transport) error {
	err := s.srv.Run(ctx, t)
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// sync lists exactly the exposed agents as tools: new ones added, changed
// descriptions replaced, the rest removed. The SDK tells the connected
// clients that the list changed.
func (s *Server) sync() {
	want := map[string]registry.Agent{}
	for _, a := range s.cfg.Expose.ExposedAgents(s.cfg.Agents.Snapshot()) {
		want[a.Name] = a
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var gone []string
	for name := range s.tools {
		if _, ok := want[name]; !ok {
			gone = append(gone, name)
			delete(s.tools, name)
		}
	}
	if len(gone) > 0 {
		s.srv.RemoveTools(gone...)
	}
	for name, a := range want {
		if desc, ok := s.tools[name]; ok && desc == a.Description {
			continue
		}
		s.tools[name] = a.Description
		sdk.AddTool(s.srv, agentTool(a), s.callAgent(name))
	}
}

// quiet is log for the SDK: its warnings and errors, not a line per
// session it connects.
func quiet(log *slog.Logger) *slog.Logger { return slog.New(warnings{log.Handler()}) }

type warnings struct{ slog.Handler }

func (w warnings) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.Handler.Enabled(ctx, l)
}

func (w warnings) WithAttrs(as []slog.Attr) slog.Handler { return warnings{w.Handler.WithAttrs(as)} }
func (w warnings) WithGroup(name string) slog.Handler    { return warnings{w.Handler.WithGroup(name)} }
