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
	"time"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/cmd/agentry/answer"
	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/cmd/agentry/runlog"
	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/a2a"
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

// serve opens the agents folder, listens, and serves until ctx ends.
func (s *session) serve(ctx context.Context, cfg config.Config, hurry <-chan struct{}) (err error) {
	log := runlog.Logger(s.stderr, cfg.Serve.LogFormat)
	if err := checkFolder("agents", cfg.Agents); err != nil {
		return err
	}
	store, err := openStore(cfg.DB)
	if err != nil {
		return fmt.Errorf("open traces: %w", err)
	}
	defer store.Close()
	// Every change to an agent file becomes a version (versions.go): the
	// watcher's and the editor's, and those made while nothing ran.
	versions := newVersionRecorder(store, log)
	defer versions.Close(context.Background()) // before the store closes
	reg := registry.New(nil)
	files, err := folder.OpenContents(cfg.Agents, agentContents(reg, registryOptions(cfg), versions), folder.Config{Log: log})
	if err != nil {
		return fmt.Errorf("watch agents: %w", err)
	}
	defer files.Close()
	defer s.withLibrary(cfg, reg, true, log, nil, versions)() // skills, commands and plugins' agents, watched
	versions.syncAgents(ctx, reg.Snapshot())
	if s.lib != nil {
		versions.syncSkills(ctx, s.lib.Snapshot())
	}
	// Runs of `agentry run` processes killed while serve runs would show as
	// running forever (and refuse Cancel): mark them interrupted.
	defer trace.StartReaper(store, reapInterval, log)()
	// Calls that ask wait on the database, where this UI, another serve or
	// `agentry approvals` answers them.
	metrics := serveMetrics(reg, store, log)
	rec := trace.NewRecorder(metrics.Applier(store), trace.RecorderConfig{Logger: log})
	// Spans the last runs wrote after the final flush would be lost without
	// a word: a failed close fails serve, as it fails `agentry run`.
	defer func() { err = errors.Join(err, closeTrace(rec)) }()
	// The runs go on until drain ends them, not until the signal: runCtx
	// keeps ctx's values (OTel) without its cancellation.
	runCtx, sink, otelDone, err := s.withOtel(context.WithoutCancel(ctx), cfg, rec, log, false)
	if err != nil {
		return err
	}
	defer otelDone() // after the runs in flight end (deferred below), before the recorder closes
	runLines := runlog.New(log)
	sink = trace.Tee(sink, metrics.Sink(), runLines)
	rtLog := slog.New(runLines.Handler(log.Handler()))
	models := serveModels(cfg, s.getenv) // script: names from the browser stay in serve.script_dir
	var remote []delegation.RemoteAgent  // the a2a: agents as resolved now, for the graph and the explorer too
	rt, stopTools, err := s.newRuntime(runCtx, cfg, reg, sink, rtLog, func(c *delegation.Config) { c.Approvals, c.Models, remote = store, models, c.Remote })
	if err != nil {
		return err
	}
	defer stopTools() // after the runs in flight end (deferred below)
	runs := &uiRunner{rt: rt, rec: rec, store: store, log: log}
	defer runs.wait(cancelWait, nil) // a run that failed to start serve still ends before the store closes
	ready := newReadiness(store, reg, files.Dir())
	webCfg := web.Config{
		Agents: reg, Files: folder.Sourced(files, registry.SourceWeb), Global: cfg.GlobalTools(), Delegation: cfg.DelegationPolicy(),
		Models: modelChoices(cfg), Token: cfg.Token, Log: log, Unavailable: unavailableTools(cfg),
		ModelProblems: agentModelProblems(cfg, models),
		Runs:          store, Runtime: runs, DefaultModel: cfg.Models.Default, ScriptDir: cfg.Serve.ScriptDir,
		Approvals: store, Ready: ready.checks, Expose: exposure(cfg), Version: version,
		Plugins: &plugin.Store{Dir: cfg.PluginsDir()}, SkillFiles: s.skillFiles, Remote: a2a.Targets(remote),
	}
	if s.lib != nil {
		webCfg.Skills = s.lib
	}
	detach, err := attach(ctx, cfg, store, reg, versions, runs, metrics, log, &webCfg)
	if err != nil {
		return err
	}
	defer detach()
	webCfg.AgentsDir = files.Dir()
	ui, err := web.New(webCfg)
	if err != nil {
		return err
	}
	hs, served, err := s.listen(cfg, ui, files.Dir(), log)
	if err != nil {
		return err
	}
	select {
	case err := <-served:
		ui.Close()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	return drain(ctx, cfg.Serve.ShutdownGrace.D(), hurry, hs, ui, runs, ready, log)
}

// listen serves ui on cfg.Addr and says where: the address to open, with
// its token, on stdout, and in the log. served receives Serve's end.
func (s *session) listen(cfg config.Config, ui http.Handler, agentsDir string, log *slog.Logger) (_ *http.Server, served <-chan error, _ error) {
	ln, err := net.Listen("tcp", cfg.Addr)
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
// to Temporal. detach undoes them, last first.
func attach(ctx context.Context, cfg config.Config, store traceDB, reg *registry.Registry, versions *versionRecorder, runs *uiRunner,
	metrics *prometheus.Metrics, log *slog.Logger, w *web.Config) (detach func(), err error) {
	var undo []func()
	undoAll := func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	defer func() {
		if err != nil {
			undoAll()
		}
	}()
	if cfg.Serve.MetricsAddr == "" {
		w.Metrics = metrics.Handler()
	} else {
		stop, err := serveMetricsApart(cfg.Serve.MetricsAddr, metrics, log)
		if err != nil {
			return nil, err
		}
		undo = append(undo, stop)
	}
	if cfg.Engine == config.EngineTemporal { // the approvals pages' answers signal the waiting run
		var closeAnswers func()
		w.Approvals, closeAnswers = answer.Signal(cfg.TemporalEngine(), store, log)
		undo = append(undo, closeAnswers)
	}
	closeWorkflows, err := watchWorkflows(ctx, cfg, reg, versions, log, w)
	if err != nil {
		return nil, err
	}
	undo = append(undo, closeWorkflows)
	w.WorkflowRuntime = uiWorkflows{runs}
	closeEvals, err := watchEvals(cfg, store, versions, log, w) // versions and evals (versions.go)
	if err != nil {
		return nil, err
	}
	undo = append(undo, closeEvals)
	if cfg.Engine == config.EngineTemporal { // the start forms submit to Temporal (serve_temporal.go)
		closeEngine, err := onTemporal(ctx, cfg, store, runs, log, w)
		if err != nil {
			return nil, err
		}
		undo = append(undo, closeEngine)
	}
	return undoAll, nil
}
