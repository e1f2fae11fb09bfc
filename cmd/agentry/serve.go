package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/cmd/agentry/answer"
	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/cmd/agentry/runlog"
	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/a2a"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
	"github.com/agentry/agentry/registry/plugin"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/prometheus"
	"github.com/agentry/agentry/web"
)

// Shutdown times. On SIGTERM serve takes no new runs and lets the runs in
// flight finish for serve.shutdown_grace (default
// defaultShutdownGrace); then it cancels the rest and gives them
// cancelWait to record their end. Ctrl-C (SIGINT), or a second signal,
// skips the grace: a person at the terminal wants it to stop.
const (
	defaultShutdownGrace = 20 * time.Second
	cancelWait           = 10 * time.Second
	requestsWait         = 5 * time.Second // requests in flight after the runs
)

// reapInterval is how often serve looks for runs whose process has ended:
// one indexed query, and a /proc read per running run.
const reapInterval = 2 * time.Second

// serveCommand runs the web UI until SIGINT or SIGTERM.
func (s *session) serveCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "serve the web UI: edit agents, start runs, watch timelines",
		Args:  noArgs,
		RunE: s.with(configOnly, func(cmd *cobra.Command, args []string, o *opened) error {
			cfg := o.cfg
			if err := s.checkServe(cmd, &cfg); err != nil {
				return err
			}
			ctx, hurry, stop := onSignals(cmd.Context())
			defer stop()
			return s.serve(ctx, cfg, hurry)
		}),
	}
	addConfigFlags(cmd.Flags(), "agents", "db", "workflows", "addr", "token", "metrics-addr", "log-format", "shutdown-grace")
	return cmd
}

// checkServe refuses, before anything opens, what serve's configuration
// gets wrong: a bad token, an address other machines reach with no token,
// serve's own settings. It makes the token and the script folder final.
func (s *session) checkServe(cmd *cobra.Command, cfg *config.Config) error {
	token, err := checkToken(cfg.Token)
	if err != nil {
		return usage(cmd, "%s", err)
	}
	cfg.Token = token
	if err := checkListenAddr("--addr (addr)", cfg.Addr); err != nil {
		return usage(cmd, "%s", err)
	}
	if cfg.Serve.MetricsAddr != "" {
		if err := checkListenAddr("--metrics-addr (serve.metrics_addr)", cfg.Serve.MetricsAddr); err != nil {
			return usage(cmd, "%s", err)
		}
	}
	if err := checkExposure(cfg.Addr, cfg.Token); err != nil {
		return usage(cmd, "%s", err)
	}
	if cfg.Serve.ScriptDir != "" {
		if cfg.Serve.ScriptDir, err = filepath.Abs(cfg.Serve.ScriptDir); err != nil {
			return configError{fmt.Errorf("serve.script_dir: %w", err)}
		}
	}
	if err := cfg.Serve.CheckServe(); err != nil {
		return usage(cmd, "%s", err)
	}
	if cfg.Serve.MetricsAddr != "" && checkExposure(cfg.Serve.MetricsAddr, "") != nil {
		fmt.Fprintf(s.stderr, "agentry: note: --metrics-addr %s is reachable from other machines and has no token\n", cfg.Serve.MetricsAddr)
	}
	return nil
}

// serve opens what it serves from, starts the runtime and the UI on them,
// and serves until ctx ends; then it drains the runs and closes what it
// opened, the last opened first.
func (s *session) serve(ctx context.Context, cfg config.Config, hurry <-chan struct{}) (err error) {
	log := runlog.Logger(s.stderr, cfg.Serve.LogFormat)
	if err := checkFolder("agents", cfg.Agents); err != nil {
		return err
	}
	var down teardown
	defer func() { err = errors.Join(err, down.run()) }()
	src, err := s.openSources(ctx, cfg, log, &down)
	if err != nil {
		return err
	}
	urt, err := s.startRuntime(ctx, cfg, src, log, &down)
	if err != nil {
		return err
	}
	ui, ready, err := s.newUI(ctx, cfg, src, urt, log, &down)
	if err != nil {
		return err
	}
	hs, served, err := s.listen(cfg, ui, src.files.Dir(), log)
	if err != nil {
		return err
	}
	select {
	case err := <-served:
		ui.Close()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	return drain(ctx, cfg.Serve.ShutdownGrace.D(), hurry, hs, ui, urt.runs, ready, log)
}

// sources is what serve serves from: the trace store, the agents folder
// watched into reg (with the skills library), every change recorded as a
// version, and the metrics over them.
type sources struct {
	store    traceDB
	versions *versionRecorder
	reg      *registry.Registry
	files    *folder.Folder
	metrics  *prometheus.Metrics
}

// openSources opens the trace store and watches the agents folder and the
// library; down closes them.
func (s *session) openSources(ctx context.Context, cfg config.Config, log *slog.Logger, down *teardown) (*sources, error) {
	store, err := openStore(cfg.DB)
	if err != nil {
		return nil, fmt.Errorf("open traces: %w", err)
	}
	down.push(func() { store.Close() })
	// Every change to an agent file becomes a version (versions.go): the
	// watcher's and the editor's, and those made while nothing ran.
	versions := newVersionRecorder(store, log)
	down.push(func() { versions.Close(context.Background()) }) // before the store closes
	reg := registry.New(nil)
	files, err := folder.OpenContents(cfg.Agents, agentContents(reg, registryOptions(cfg), versions), folder.Config{Log: log})
	if err != nil {
		return nil, fmt.Errorf("watch agents: %w", err)
	}
	down.push(func() { files.Close() })
	closeLibrary := s.withLibrary(cfg, reg, true, log, nil, versions) // skills, commands and plugins' agents, watched
	down.push(func() { closeLibrary() })
	versions.syncAgents(ctx, reg.Snapshot())
	if s.lib != nil {
		versions.syncSkills(ctx, s.lib.Snapshot())
	}
	// Runs of `agentry run` processes killed while serve runs would show as
	// running forever (and refuse Cancel): mark them interrupted.
	down.push(trace.StartReaper(store, reapInterval, log))
	return &sources{store: store, versions: versions, reg: reg, files: files, metrics: serveMetrics(reg, store, log)}, nil
}

// uiRuntime is the runtime the UI starts runs on, with what the UI shows of
// it: the models it can call and the a2a: agents as resolved at start.
type uiRuntime struct {
	runs   *uiRunner
	models model.Providers
	remote []delegation.RemoteAgent
}

// startRuntime starts the runtime: its spans go to the store (through the
// metrics) and to OpenTelemetry, each run's lines to the log; down ends
// the runs in flight and then closes the recorder.
func (s *session) startRuntime(ctx context.Context, cfg config.Config, src *sources, log *slog.Logger, down *teardown) (*uiRuntime, error) {
	runLines := runlog.New(log)
	urt := &uiRuntime{models: serveModels(cfg, s.getenv)} // script: names from the browser stay in serve.script_dir
	// The runs go on until drain ends them, not until the signal.
	_, live, err := s.openRuntime(ctx, cfg, src.reg, runtimeSpec{store: src.store, writes: src.metrics.Applier(src.store), server: true,
		log: log, runtimeLog: slog.New(runLines.Handler(log.Handler())), sinks: []trace.Sink{src.metrics.Sink(), runLines},
		more: []func(*delegation.Config){func(c *delegation.Config) {
			c.Models, urt.remote = urt.models, c.Remote
		}}})
	if err != nil {
		return nil, err
	}
	// After the runs in flight end (pushed below). Spans the last runs
	// wrote after the final flush would be lost without a word: a failed
	// close fails serve, as it fails `agentry run`.
	down.pushErr(live.close)
	urt.runs = &uiRunner{rt: live.rt, rec: live.rec, store: src.store, log: log}
	down.push(func() { urt.runs.wait(cancelWait, nil) }) // a run that failed to start serve still ends before the store closes
	return urt, nil
}

// newUI builds the web UI over src and urt, with what attach adds, and
// the readiness /readyz reports.
func (s *session) newUI(ctx context.Context, cfg config.Config, src *sources, urt *uiRuntime, log *slog.Logger, down *teardown) (*web.Server, *readiness, error) {
	ready := newReadiness(src.store, src.reg, src.files.Dir())
	webCfg := web.Config{
		Agents: src.reg, Files: folder.Sourced(src.files, registry.SourceWeb), AgentsDir: src.files.Dir(),
		Global: cfg.GlobalTools(), Delegation: cfg.DelegationPolicy(),
		Models: modelChoices(cfg), Token: cfg.Token, Log: log, Unavailable: unavailableTools(cfg),
		ModelProblems: agentModelProblems(cfg, urt.models),
		Runs:          src.store, Runtime: urt.runs, DefaultModel: cfg.Models.Default, ScriptDir: cfg.Serve.ScriptDir,
		Approvals: src.store, Ready: ready.checks, Expose: exposure(cfg), Version: version,
		Plugins: &plugin.Store{Dir: cfg.PluginsDir()}, SkillFiles: s.skillFiles, Remote: a2a.Targets(urt.remote),
	}
	if s.lib != nil {
		webCfg.Skills = s.lib
	}
	if err := attach(ctx, cfg, src, urt.runs, log, &webCfg, down); err != nil {
		return nil, nil, err
	}
	ui, err := web.New(webCfg)
	return ui, ready, err
}

// teardown is what serve closes as it ends, the last opened first, as the
// defers of one function would; a step's error fails serve.
type teardown []func() error

// push adds a step that cannot fail serve.
func (t *teardown) push(step func()) { *t = append(*t, func() error { step(); return nil }) }

// pushErr adds a step whose error fails serve.
func (t *teardown) pushErr(step func() error) { *t = append(*t, step) }

// run runs the steps, the last pushed first, and joins their errors.
func (t teardown) run() error {
	var errs []error
	for i := len(t) - 1; i >= 0; i-- {
		errs = append(errs, t[i]())
	}
	return errors.Join(errs...)
}

// listen serves ui on cfg.Addr and says where: the address to open, with
// its token, on stdout, and in the log. served receives Serve's end.
func (s *session) listen(cfg config.Config, ui http.Handler, agentsDir string, log *slog.Logger) (_ *http.Server, served <-chan error, _ error) {
	ln, err := net.Listen("tcp", cfg.Addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, nil, fmt.Errorf("listen: %w: another program (another agentry serve?) has %s; choose another with --addr HOST:PORT", err, cfg.Addr)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("listen: %w", err)
	}
	hs := &http.Server{Handler: ui, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	ended := make(chan error, 1)
	go func() { ended <- hs.Serve(ln) }()
	open, note := browseURL(ln.Addr().String(), cfg.Token, os.Hostname)
	fmt.Fprintf(s.stdout, "agentry: serving the agents in %s at %s\n", agentsDir, open)
	if note != "" {
		fmt.Fprintf(s.stdout, "agentry: %s\n", note)
	}
	log.Info("listening", "addr", ln.Addr().String(), "agents", agentsDir, "token", cfg.Token != "")
	return hs, ended, nil
}

// attach adds to w what serve offers beside agents and runs: metrics (on
// w, or on an address of their own), workflows, versions and evals, and
// with engine: temporal the approvals' answers and the start forms that go
// to Temporal. down undoes them.
func attach(ctx context.Context, cfg config.Config, src *sources, runs *uiRunner, log *slog.Logger, w *web.Config, down *teardown) error {
	if cfg.Serve.MetricsAddr == "" {
		w.Metrics = src.metrics.Handler()
	} else {
		stop, err := serveMetricsApart(cfg.Serve.MetricsAddr, src.metrics, log)
		if err != nil {
			return err
		}
		down.push(stop)
	}
	if cfg.Engine == config.EngineTemporal { // the approvals pages' answers signal the waiting run
		var closeAnswers func()
		w.Approvals, closeAnswers = answer.Signal(cfg.TemporalEngine(), src.store, log)
		down.push(closeAnswers)
	}
	closeWorkflows, err := watchWorkflows(ctx, cfg, src.reg, src.versions, log, w)
	if err != nil {
		return err
	}
	down.push(closeWorkflows)
	w.WorkflowRuntime = uiWorkflows{runs}
	closeEvals, err := watchEvals(cfg, src.store, src.versions, log, w) // versions and evals (versions.go)
	if err != nil {
		return err
	}
	down.push(closeEvals)
	if cfg.Engine == config.EngineTemporal { // the start forms submit to Temporal (serve_temporal.go)
		closeEngine, err := onTemporal(ctx, cfg, src.store, runs, log, w)
		if err != nil {
			return err
		}
		down.push(closeEngine)
	}
	return nil
}
