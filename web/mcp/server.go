package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentry/agentry/web/core"
)

// Config is what the server needs (core.Door): its zero Expose lists no
// tool; Workflows and WorkflowRunner, when set, make the exposed workflows
// tools too; Approvals, when set, lets a call ask the client's user
// through elicitation when the client can.
type Config = core.Door

// Server is agentry's MCP server: one tool per exposed agent. It keeps
// its tool list in step with the registry until Close.
type Server struct {
	cfg  Config
	srv  *sdk.Server
	stop []func()
	done sync.WaitGroup

	mu    sync.Mutex
	tools map[string]string // listed tool → its definition as JSON, to tell a changed one
}

// New builds the server and lists the exposed agents as tools.
func New(cfg Config) (*Server, error) {
	if cfg.Agents == nil || cfg.Runner == nil || cfg.Live == nil || cfg.Store == nil {
		return nil, errors.New("mcp server: Agents, Runner, Live and Store are required")
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, tools: map[string]string{}}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "agentry", Title: "agentry agents", Version: cfg.Version}, &sdk.ServerOptions{
		Instructions: instructions,
		Logger:       quiet(cfg.Log),
		// Tools come and go with the agent files: say so even when none is exposed yet.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}},
	})
	s.srv.AddReceivingMiddleware(s.sayMissing)
	s.resync(cfg.Agents.Subscribe())
	if cfg.ServesWorkflows() {
		s.resync(cfg.Workflows.Subscribe())
	}
	s.sync()
	return s, nil
}

// resync syncs the tool list on every change until Close.
func (s *Server) resync(changes <-chan struct{}, unsubscribe func()) {
	s.stop = append(s.stop, unsubscribe)
	s.done.Go(func() {
		for range changes {
			s.sync()
		}
	})
}

// sayMissing makes the SDK's error for a call of a tool it does not list
// (unknown tool "x") say what is missing as the web's 404s and A2A's do
// (core.NotExposed), keeping its JSON-RPC code.
func (s *Server) sayMissing(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		var je *jsonrpc.Error
		call, isCall := req.(*sdk.CallToolRequest)
		if err == nil || !isCall || !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || s.lists(call.Params.Name) {
			return res, err
		}
		return res, &jsonrpc.Error{Code: je.Code, Message: core.MessageOf(core.NotExposed(call.Params.Name), http.StatusNotFound, "")}
	}
}

// lists reports whether the tool called name is listed now.
func (s *Server) lists(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.tools[name]
	return ok
}

// instructions is what a client may show its model about this server.
const instructions = "Each tool is an agentry agent, or a workflow (tools named workflow-NAME). " +
	"Call an agent with a task (and optional context), a workflow with its inputs; " +
	"it runs under agentry's permissions, limits and approvals and answers with its result " +
	"and the run's ID (structuredContent.run_id), whose trace agentry's web UI shows."

// Close stops following the registry. Sessions end with their transports.
func (s *Server) Close() {
	for _, stop := range s.stop {
		stop()
	}
	s.done.Wait()
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

// sync lists exactly the exposed agents and workflows as tools: new ones
// added, changed ones replaced, the rest removed. The SDK tells the
// connected clients that the list changed.
func (s *Server) sync() {
	want := map[string]func(){} // tool name → what adds it
	defs := map[string]string{}
	add := func(t *sdk.Tool, register func(*sdk.Tool)) {
		def, _ := json.Marshal(t)
		want[t.Name], defs[t.Name] = func() { register(t) }, string(def)
	}
	for _, a := range s.cfg.Expose.ExposedAgents(s.cfg.Agents.Snapshot()) {
		add(agentTool(a), func(t *sdk.Tool) { sdk.AddTool(s.srv, t, s.callAgent(a.Name)) })
	}
	for _, wf := range s.cfg.ExposedWorkflows() {
		if _, taken := want[workflowTool(wf).Name]; !taken {
			add(workflowTool(wf), func(t *sdk.Tool) { sdk.AddTool(s.srv, t, s.callWorkflow(wf.Name)) })
		}
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
	for name, register := range want {
		if s.tools[name] == defs[name] {
			continue
		}
		s.tools[name] = defs[name]
		register()
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
