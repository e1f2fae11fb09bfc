package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	library "github.com/agentry/agentry/registry/skills"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/web/a2a"
	"github.com/agentry/agentry/web/agents"
	"github.com/agentry/agentry/web/api"
	"github.com/agentry/agentry/web/approvals"
	"github.com/agentry/agentry/web/core"
	"github.com/agentry/agentry/web/evals"
	"github.com/agentry/agentry/web/history"
	"github.com/agentry/agentry/web/mcp"
	"github.com/agentry/agentry/web/rundiff"
	"github.com/agentry/agentry/web/runs"
	"github.com/agentry/agentry/web/skills"
	"github.com/agentry/agentry/web/workflows"
)

// MinTokenLen is the shortest access token New accepts (spaces around it do
// not count): a one-character token guards nothing.
const MinTokenLen = 16

// Config is what New needs. Agents and Files are required; the rest is optional.
type Config struct {
	// Agents is the live registry the pages read.
	Agents agents.Catalog
	// Files writes the agents folder on behalf of the editor.
	Files agents.Files
	// Global is the global tool level of every permission chain.
	Global permissions.Rules
	// Delegation is the run-wide delegation policy (max depth, disabled agents).
	Delegation permissions.Delegation
	// Models are suggestions for the editor's model field (aliases, the default).
	Models []string
	// Unavailable maps built-in tools that cannot run on this machine (no
	// bubblewrap, no search backend) to why, so a file's grant stays visible.
	Unavailable map[string]string
	// ModelProblems, when set, warns about an agent whose model cannot be
	// used here, so the list and the editor say it runs on the default.
	ModelProblems func(registry.Agent) []registry.Problem
	// Token, when not empty, is required on every request (header, cookie or
	// ?token= once); it must have at least MinTokenLen characters. serve sets
	// it for non-loopback addresses.
	Token string
	// Log receives one line per failed request; nil discards.
	Log *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Runs is the trace store the runs pages read; nil makes them answer 503.
	Runs runs.RunStore
	// Runtime starts runs from the browser; nil leaves the start form
	// explaining that this server cannot run agents.
	Runtime core.Runner
	// DefaultModel is preselected in the start-a-run form; "" means "demo".
	DefaultModel string
	// ScriptDir is the only folder the start form may take script:NAME models
	// from (serve.script_dir); "" turns script models off in the form.
	ScriptDir string
	// Workflows is the live workflows folder; nil makes the workflows pages
	// say this server has none.
	Workflows workflows.Catalog
	// WorkflowFiles writes the workflows folder for the YAML editor; nil
	// makes the editor read-only. A History restore saves through it when
	// it is also a history.Files (folder.Sourced is).
	WorkflowFiles workflows.Files
	// WorkflowsDir is the workflows folder on disk, for its git history;
	// "" shows none.
	WorkflowsDir string
	// WorkflowRuntime starts workflow runs; nil (or no Runs) leaves the
	// workflow start form explaining that this server cannot run them.
	WorkflowRuntime core.WorkflowRunner
	// Approvals holds the calls waiting for a person (the same database as
	// Runs); nil leaves the approvals page empty and the run page without
	// its "Waiting for approval" section.
	Approvals approval.Store
	// Ready are the checks of /readyz (store reachable, registry loaded,
	// ...); /healthz and /readyz need no token (health.go).
	Ready []Check
	// Metrics, when set, is served at /metrics behind the same token and
	// host checks as the pages; serve leaves it nil when the metrics have
	// an address of their own (--metrics-addr).
	Metrics http.Handler
	// Expose says which agents outside tools may run through /mcp (and
	// under which permissions); its zero value exposes none.
	Expose core.Exposure
	// Version is agentry's version, which MCP's serverInfo carries.
	Version string
	// Skills is the live skills and commands library; nil makes the
	// skills page empty. SkillFiles writes a library root (by its label)
	// for the skill editor; nil, or nil for a root, makes it read-only.
	Skills     skills.Library
	SkillFiles func(rootLabel string) skills.Files
	// Plugins is the plugins folder the plugins page lists and enables.
	Plugins skills.Plugins
	// Versions are the agent files' versions (History); nil makes the
	// History pages say the store keeps none. A restore saves through
	// Files, which must then also be a history.Files (folder.Sourced is).
	Versions history.Versions
	// AgentsDir is the agents folder on disk, for its git history; ""
	// shows none.
	AgentsDir string
	// EvalSuites are the evals folder's suites, EvalFiles write it (the
	// run page's "Add as eval case"), Evals the eval results beside Runs;
	// any may be nil, and the Evals pages say what is missing.
	EvalSuites evals.Suites
	EvalFiles  evals.Files
	Evals      trace.EvalStore
	// Remote are the agents that run elsewhere (a2a: in agentry.yaml), as
	// serve resolved them at start: the graph and the permissions explorer
	// show them as delegation targets.
	Remote []registry.RemoteTarget
}

// Server is the web UI. It is an http.Handler; Close ends open event streams
// so an http.Server can shut down gracefully.
type Server struct {
	handler http.Handler // the probes, then echo's routes
	mcp     *mcp.Server  // nil without a runtime and a store

	stopOnce sync.Once
	stop     chan struct{}
}

// New builds the server and its routes.
func New(cfg Config) (*Server, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Server{stop: make(chan struct{})}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = core.ErrorHandler(cfg.Log)
	if err := core.Install(e, cfg.Token); err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	ag := agents.New(agents.Config{
		Agents: cfg.Agents, Files: cfg.Files, Global: cfg.Global, Delegation: cfg.Delegation,
		Models: cfg.Models, Unavailable: cfg.Unavailable, ModelProblems: cfg.ModelProblems, Log: cfg.Log, Stop: s.stop, Remote: cfg.Remote,
	})
	ap := approvals.New(approvalStore(cfg), cfg.Now)
	core.NavBadges(e, map[string]core.Counter{"/approvals": ap.Count})
	live := core.NewLive(s.stop) // the runs this server started, whichever edge asked
	rp := runs.New(runs.Config{
		Agents: cfg.Agents, Store: cfg.Runs, Runner: cfg.Runtime, Models: cfg.Models,
		DefaultModel: cfg.DefaultModel, ScriptDir: cfg.ScriptDir, Log: cfg.Log, Now: cfg.Now, Stop: s.stop,
		Approvals: ap.Section, Live: live,
	})
	wp := workflows.New(workflows.Config{
		Catalog: cfg.Workflows, Files: cfg.WorkflowFiles, Runner: cfg.WorkflowRuntime, Launch: workflowLauncher(cfg, rp),
		Models: rp.Models(), Log: cfg.Log, Stop: s.stop,
	})
	sp := skills.New(skills.Config{Library: cfg.Skills, Files: cfg.SkillFiles, Plugins: cfg.Plugins, Start: commandStarter(cfg, rp), Log: cfg.Log})
	hf, _ := cfg.Files.(history.Files)
	hp := history.New(history.Config{Agents: cfg.Agents, Versions: cfg.Versions, Files: hf, AgentsDir: cfg.AgentsDir, Log: cfg.Log})
	sh := history.New(history.Config{Kind: registry.KindSkill, Base: "/skills", Param: "id", Current: cfg.skillFile, Versions: cfg.Versions, Log: cfg.Log})
	wf, _ := cfg.WorkflowFiles.(history.Files) // a restore saves as the YAML editor does
	wh := history.New(history.Config{Kind: registry.KindWorkflow, Base: "/workflows", Editor: "/edit", Current: cfg.workflowFile,
		Gone: cfg.goneWorkflow, Versions: cfg.Versions, Files: wf, Log: cfg.Log})
	ep := evals.New(evals.Config{Suites: cfg.EvalSuites, Store: evalStore(cfg), Files: cfg.EvalFiles, Log: cfg.Log})
	dp := rundiff.New(diffStore(cfg))
	mcpHandler, err := s.newMCP(cfg, live)
	if err != nil {
		return nil, err
	}
	routes(e, pages{agents: ag, runs: rp, workflows: wp, approvals: ap, skills: sp, evals: ep, rundiff: dp,
		agentHistory: hp, workflowHistory: wh, skillHistory: sh}, doors{
		mcp: mcpHandler,
		a2a: newA2A(cfg, live),
		api: api.Config{Agents: cfg.Agents, Files: cfg.Files, Global: cfg.Global, Delegation: cfg.Delegation, Remote: cfg.Remote,
			Runs: cfg.Runs, Runner: cfg.Runtime, Live: live, Workflows: cfg.Workflows, WorkflowRunner: cfg.WorkflowRuntime,
			Approvals: cfg.Approvals, Version: cfg.Version, Log: cfg.Log, Stop: s.stop},
	})
	if cfg.Metrics != nil {
		e.GET("/metrics", echo.WrapHandler(cfg.Metrics))
	}
	s.handler = probes(cfg.Ready, e)
	return s, nil
}

// withDefaults checks cfg and fills in the clock and the log.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Agents == nil || cfg.Files == nil {
		return cfg, errors.New("web: Config.Agents and Config.Files are required")
	}
	if cfg.Token != "" && utf8.RuneCountInString(strings.TrimSpace(cfg.Token)) < MinTokenLen {
		return cfg, fmt.Errorf("web: the access token must have at least %d characters", MinTokenLen)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return cfg, nil
}

// workflowLauncher starts workflow runs through the runs pages, which keep
// them so that Cancel reaches them; nil without a trace store.
func workflowLauncher(cfg Config, rp *runs.Pages) workflows.Launcher {
	if cfg.Runs == nil {
		return nil
	}
	return func(start func(context.Context) (workflows.Execution, error)) (string, error) {
		return rp.Launch(func(ctx context.Context) (runs.Execution, error) { return start(ctx) })
	}
}

// commandStarter runs a command's agent on its expanded arguments, kept by
// the runs pages too; nil without a runtime and a trace store.
func commandStarter(cfg Config, rp *runs.Pages) skills.StartCommand {
	if cfg.Runtime == nil || cfg.Runs == nil {
		return nil
	}
	return func(_ context.Context, cm library.Command, args, model string) (string, error) {
		a := cm.Agent()
		return rp.Launch(func(ctx context.Context) (runs.Execution, error) {
			return cfg.Runtime.Start(ctx, runs.RunRequest{Agent: a.Name, Inline: &a, Task: cm.Expand(args), Model: model})
		})
	}
}

// ServeHTTP serves the UI.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Close ends long-lived responses (event streams) and cancels the runs
// still going. It is safe to call twice; serve registers it with
// http.Server.RegisterOnShutdown.
func (s *Server) Close() {
	s.stopOnce.Do(func() {
		close(s.stop)
		if s.mcp != nil {
			s.mcp.Close()
		}
	})
}

// newA2A is the A2A server of the exposed agents (web/a2a); nil without a
// runtime and a trace store, and its routes answer 503.
func newA2A(cfg Config, live *core.Live) *a2a.Server {
	if cfg.Runtime == nil || cfg.Runs == nil {
		return nil
	}
	return a2a.New(a2a.Config{Agents: cfg.Agents, Expose: cfg.Expose, Runner: cfg.Runtime, Live: live,
		Workflows: cfg.Workflows, WorkflowRunner: cfg.WorkflowRuntime, Store: cfg.Runs, Approvals: cfg.Approvals, Version: cfg.Version, Log: cfg.Log})
}

// newMCP is the handler of MCP's Streamable HTTP transport: the exposed
// agents as tools (web/mcp). Without a runtime and a trace store it
// answers 503, as the start form says it cannot run agents.
func (s *Server) newMCP(cfg Config, live *core.Live) (echo.HandlerFunc, error) {
	if cfg.Runtime == nil || cfg.Runs == nil {
		return func(echo.Context) error { return errNoRuntime }, nil
	}
	srv, err := mcp.New(mcp.Config{Agents: cfg.Agents, Expose: cfg.Expose, Runner: cfg.Runtime, Live: live,
		Workflows: cfg.Workflows, WorkflowRunner: cfg.WorkflowRuntime,
		Store: cfg.Runs, Approvals: cfg.Approvals, Version: cfg.Version, Log: cfg.Log})
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	s.mcp = srv
	return echo.WrapHandler(srv.Handler()), nil
}

// approvalStore is cfg.Approvals for the approvals pages; nil when it is,
// since a nil approval.Store would be a non-nil approvals.Store.
func approvalStore(cfg Config) approvals.Store {
	if cfg.Approvals == nil {
		return nil
	}
	return cfg.Approvals
}

// diffStore is cfg.Runs for the run comparison; nil when it is, as for
// approvalStore.
func diffStore(cfg Config) rundiff.Store {
	if cfg.Runs == nil {
		return nil
	}
	return cfg.Runs
}

// evalStore joins the eval results and the runs they made for the Evals
// pages; nil when either is missing.
func evalStore(cfg Config) evals.Store {
	if cfg.Evals == nil || cfg.Runs == nil {
		return nil
	}
	return struct {
		trace.EvalStore
		runs.RunStore
	}{cfg.Evals, cfg.Runs}
}
