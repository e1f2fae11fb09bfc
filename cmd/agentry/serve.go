package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
	"github.com/agentry/agentry/registry/plugin"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/web"
)

// Shutdown times. On SIGTERM serve takes no new runs and lets the runs in
// flight finish for ServeConfig.ShutdownGrace (default
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

// errExposed is returned for a non-loopback address without a token.
var errExposed = errors.New("refusing to listen on a non-loopback address without a token: " +
	"anyone who can reach it could edit your agents. Set --token (or AGENTRY_TOKEN), or use 127.0.0.1")

// ServeConfig is what the web UI may do beyond editing agents and running
// them on the configured models.
type ServeConfig struct {
	// ScriptDir, when set, lets the browser run script:NAME models read from
	// this folder only (no paths out of it, no symlinks out, at most 1 MiB).
	// Empty, the default, turns script models off in serve.
	ScriptDir string `yaml:"script_dir"`
	// MetricsAddr, when set, serves Prometheus' /metrics there alone,
	// without the UI's token (--metrics-addr); empty serves it on the UI's
	// address behind the token.
	MetricsAddr string `yaml:"metrics_addr"`
	// LogFormat is text (default) or json (--log-format).
	LogFormat string `yaml:"log_format"`
	// ShutdownGrace is how long SIGTERM lets running runs finish before
	// they are cancelled (--shutdown-grace); 0 means defaultShutdownGrace.
	ShutdownGrace time.Duration `yaml:"shutdown_grace"`

	confined bool          // set by serve: script: names resolve inside ScriptDir
	hurry    chan struct{} // closed by a second signal: skip what is left of the grace
}

// serveCommand runs the web UI until SIGINT or SIGTERM.
func serveCommand(ctx context.Context, s *session, args []string) int {
	fs := s.flagSet("serve")
	fs.String("addr", "", "the listen address `HOST:PORT` (default 127.0.0.1:8080)")
	fs.String("token", "", "the access `TOKEN`, at least 16 characters; required for a non-loopback --addr (or AGENTRY_TOKEN)")
	fs.String("workflows", "", "the workflows folder `DIR` (default workflows, when there is one)")
	metricsAddr := fs.String("metrics-addr", "", "serve Prometheus /metrics alone on `HOST:PORT`, without the token (default: on --addr, behind the token)")
	logFormat := fs.String("log-format", "", "log lines as `FORMAT`: text or json (default text)")
	grace := fs.Duration("shutdown-grace", 0, "on SIGTERM, how long running runs may finish before they are cancelled (default 20s)")
	rest, code, ok := s.parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) != 0 {
		return s.usageError(fs, "serve takes no arguments, got %q", strings.Join(rest, " "))
	}
	cfg, err := s.loadConfig(fs)
	if err != nil {
		return s.badConfig(err)
	}
	if cfg.Token, err = checkToken(cfg.Token); err != nil {
		return s.usageError(fs, "%s", err)
	}
	if err := checkExposure(cfg.Addr, cfg.Token); err != nil {
		return s.usageError(fs, "%s", err)
	}
	if cfg.Serve.ScriptDir != "" {
		if cfg.Serve.ScriptDir, err = filepath.Abs(cfg.Serve.ScriptDir); err != nil {
			return s.badConfig(fmt.Errorf("serve.script_dir: %w", err))
		}
	}
	if isFlagSet(fs, "metrics-addr") {
		cfg.Serve.MetricsAddr = *metricsAddr
	}
	if isFlagSet(fs, "log-format") {
		cfg.Serve.LogFormat = *logFormat
	}
	if isFlagSet(fs, "shutdown-grace") {
		cfg.Serve.ShutdownGrace = *grace
	}
	if err := cfg.Serve.check(); err != nil {
		return s.usageError(fs, "%s", err)
	}
	if cfg.Serve.MetricsAddr != "" {
		if err := checkExposure(cfg.Serve.MetricsAddr, ""); err != nil {
			fmt.Fprintf(s.stderr, "agentry: note: --metrics-addr %s is reachable from other machines and has no token\n", cfg.Serve.MetricsAddr)
		}
	}
	cfg.Serve.confined = true
	ctx, stop := onSignals(ctx, &cfg.Serve)
	defer stop()
	if err := s.serve(ctx, cfg); err != nil {
		return s.fail(err)
	}
	return 0
}

// errInterrupted is the cause of serve's context after Ctrl-C (SIGINT).
var errInterrupted = errors.New("interrupted")

// onSignals ends ctx on SIGTERM (cause context.Canceled: drain with the
// grace) or SIGINT (cause errInterrupted: no grace); a second signal
// closes sc.hurry.
func onSignals(ctx context.Context, sc *ServeConfig) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	sc.hurry = make(chan struct{})
	go func() {
		first := true
		for sig := range sigs {
			switch {
			case !first:
				close(sc.hurry)
				return
			case sig == os.Interrupt:
				cancel(errInterrupted)
			default:
				cancel(context.Canceled)
			}
			first = false
		}
	}()
	return ctx, func() { signal.Stop(sigs); cancel(nil) }
}

// check refuses settings serve cannot use.
func (c ServeConfig) check() error {
	switch c.LogFormat {
	case "", "text", "json":
	default:
		return fmt.Errorf("--log-format (serve.log_format) must be text or json, got %q", c.LogFormat)
	}
	if c.ShutdownGrace < 0 {
		return fmt.Errorf("--shutdown-grace (serve.shutdown_grace) must not be negative, got %s", c.ShutdownGrace)
	}
	return nil
}

// serve opens the agents folder, listens, and serves until ctx ends.
func (s *session) serve(ctx context.Context, cfg Config) (err error) {
	log := newLogger(s.stderr, cfg.Serve.LogFormat)
	if info, err := os.Stat(cfg.Agents); err != nil || !info.IsDir() {
		return fmt.Errorf("agents folder %q: not a readable folder", cfg.Agents)
	}
	reg := registry.New(nil)
	files, err := folder.Open(cfg.Agents, reg, registryOptions(cfg), log)
	if err != nil {
		return fmt.Errorf("watch agents: %w", err)
	}
	defer files.Close()
	defer s.withLibrary(cfg, reg, true, log, nil)() // skills, commands and plugins' agents, watched
	store, err := openStore(cfg.DB)
	if err != nil {
		return fmt.Errorf("open traces: %w", err)
	}
	defer store.Close()
	// Runs of `agentry run` processes killed while serve runs would show as
	// running forever (and refuse Cancel): mark them interrupted.
	if r, ok := store.(trace.Reaper); ok {
		defer trace.StartReaper(r, reapInterval, log)()
	}
	// Calls that ask wait on the database, where this UI, another serve or
	// `agentry approvals` answers them; a store without approvals keeps
	// them in this process.
	approvals, _ := store.(trace.ApprovalStore)
	metrics := serveMetrics(reg, approvals, log)
	rec := trace.NewRecorder(metrics.Applier(store), trace.RecorderConfig{Logger: log})
	// Spans the last runs wrote after the final flush would be lost without
	// a word: a failed close fails serve, as it fails `agentry run`.
	defer func() {
		if cerr := rec.Close(context.Background()); cerr != nil {
			err = errors.Join(err, fmt.Errorf("trace incomplete (%d records lost): %w", rec.Dropped(), cerr))
		}
	}()
	// The runs go on until drain ends them, not until the signal: runCtx
	// keeps ctx's values (OTel) without its cancellation.
	runCtx, sink, otelDone, err := s.withOtel(context.WithoutCancel(ctx), cfg, rec, log, false)
	if err != nil {
		return err
	}
	defer otelDone() // after the runs in flight end (deferred below), before the recorder closes
	runLog := newRunLog(log)
	sink = trace.Tee(sink, metrics.Sink(), runLog)
	rtLog := slog.New(runLog.handler(log.Handler()))
	rt, stopTools, err := s.newRuntime(runCtx, cfg, reg, sink, rtLog, func(c *delegation.Config) { c.Approvals = approvals })
	if err != nil {
		return err
	}
	defer stopTools() // after the runs in flight end (deferred below)
	runs := &uiRunner{rt: rt, rec: rec, log: log}
	if cs, ok := store.(conversationStore); ok {
		runs.store = cs
	}
	defer runs.wait(cancelWait, nil) // a run that failed to start serve still ends before the store closes
	ready := newReadiness(store, reg, files.Dir())
	webCfg := web.Config{
		Agents: reg, Files: files, Global: cfg.GlobalTools(), Delegation: cfg.DelegationPolicy(),
		Models: modelChoices(cfg), Token: cfg.Token, Log: log, Unavailable: unavailableTools(cfg),
		ModelProblems: s.agentModelProblems(cfg),
		Runs:          store, Runtime: runs, DefaultModel: cfg.Models.Default, ScriptDir: cfg.Serve.ScriptDir,
		Approvals: approvals, Ready: ready.checks,
		Plugins: &plugin.Store{Dir: cfg.pluginsDir()}, SkillFiles: s.skillFiles,
	}
	if s.lib != nil {
		webCfg.Skills = s.lib
	}
	if cfg.Serve.MetricsAddr == "" {
		webCfg.Metrics = metrics.Handler()
	} else {
		stopMetrics, err := serveMetricsApart(cfg.Serve.MetricsAddr, metrics, log)
		if err != nil {
			return err
		}
		defer stopMetrics()
	}
	var closeAnswers func()
	webCfg.Approvals, closeAnswers = temporalAnswers(cfg, approvals, log) // answers signal a run on Temporal (temporal_approvals.go)
	defer closeAnswers()
	closeWorkflows, err := watchWorkflows(cfg, reg, log, &webCfg)
	if err != nil {
		return err
	}
	defer closeWorkflows()
	webCfg.WorkflowRuntime = uiWorkflows{runs}
	if cfg.Engine == EngineTemporal { // the start forms submit to Temporal (serve_temporal.go)
		closeEngine, err := onTemporal(ctx, cfg, store, runs, log, &webCfg)
		if err != nil {
			return err
		}
		defer closeEngine()
	}
	ui, err := web.New(webCfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	hs := &http.Server{Handler: ui, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	open, note := browseURL(ln.Addr().String(), cfg.Token, os.Hostname)
	fmt.Fprintf(s.stdout, "agentry: serving the agents in %s at %s\n", files.Dir(), open)
	if note != "" {
		fmt.Fprintf(s.stdout, "agentry: %s\n", note)
	}
	log.Info("listening", "addr", ln.Addr().String(), "agents", files.Dir(), "token", cfg.Token != "")
	select {
	case err := <-served:
		ui.Close()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	return drain(ctx, cfg.Serve, hs, ui, runs, ready, log)
}

// drain shuts serve down: it stops accepting connections and runs (and
// /readyz says so), lets the runs in flight finish within the grace, then
// cancels the rest (ui.Close, which also ends the event streams) and waits
// for them to record their end. The recorder, closed after this returns,
// writes their final spans.
func drain(ctx context.Context, sc ServeConfig, hs *http.Server, ui *web.Server, runs *uiRunner, ready *readiness, log *slog.Logger) error {
	grace := cmp.Or(sc.ShutdownGrace, defaultShutdownGrace)
	if errors.Is(context.Cause(ctx), errInterrupted) {
		grace = 0
	}
	ready.draining.Store(true)
	runs.draining.Store(true)
	shutdown := make(chan error, 1)
	go func() { shutdown <- hs.Shutdown(context.Background()) }() // closes the listener now
	log.Info("shutting down: no new runs", "runs_in_flight", runs.inFlight.Load(), "grace", grace.String())
	if !runs.wait(grace, sc.hurry) {
		log.Warn("cancelling the runs still going", "runs", runs.inFlight.Load())
	}
	ui.Close() // cancels what is left, ends event streams
	if !runs.wait(cancelWait, nil) {
		log.Error("runs did not end after cancel", "runs", runs.inFlight.Load())
	}
	select {
	case err := <-shutdown:
		if err != nil {
			return fmt.Errorf("shut down: %w", err)
		}
	case <-time.After(requestsWait):
		_ = hs.Close()
	}
	log.Info("stopped")
	return nil
}

// uiRunner starts the browser's runs on the runtime and counts them, so
// serve can let runs that Close cancelled write their final spans before
// the trace store closes.
type uiRunner struct {
	rt       *delegation.Runtime
	rec      *trace.Recorder
	store    conversationStore // the reply box's follow-ups; nil when the store keeps no conversations
	log      *slog.Logger
	running  sync.WaitGroup
	inFlight atomic.Int64
	draining atomic.Bool // set on shutdown: Start refuses
}

// errShuttingDown refuses a run asked for while serve shuts down.
var errShuttingDown = errors.New("the server is shutting down and starts no new runs")

// track counts a started run until it is done.
func (u *uiRunner) track(done <-chan struct{}, after func()) {
	u.inFlight.Add(1)
	u.running.Go(func() {
		defer u.inFlight.Add(-1)
		<-done
		if after != nil {
			after()
		}
	})
}

// Start starts a run and flushes the recorder, so the run is in the store
// when the browser is sent to its timeline (web.Runner's contract).
func (u *uiRunner) Start(ctx context.Context, r web.RunRequest) (web.Execution, error) {
	if u.draining.Load() {
		return nil, errShuttingDown
	}
	req := delegation.Request{Agent: r.Agent, Task: r.Task, Model: r.Model, Budget: r.Budget, Inline: r.Inline}
	if err := u.followUp(ctx, r.Continue, &req); err != nil {
		return nil, err
	}
	ex, err := u.rt.Start(ctx, req)
	if err != nil {
		return nil, err // not ex: a nil *Execution would be a non-nil web.Execution
	}
	u.track(ex.Done(), func() {
		if u.store == nil {
			return
		}
		// So it can be replied to; a failure loses only that, and says so.
		if err := saveConversation(context.Background(), u.store, ex.Result(), len(req.History)); err != nil {
			u.log.Warn("the run cannot be replied to: its conversation was not saved", "run", ex.Result().RunID, "err", err)
		}
	})
	// A write error stays with the recorder (rec.Err, logged by serve); the
	// run goes on and its timeline shows what reached the store.
	_ = u.rec.Flush(ctx)
	return ex, nil
}

// uiWorkflows starts the browser's workflow runs on the same runtime,
// counted with the agent runs.
type uiWorkflows struct{ u *uiRunner }

// Start starts a workflow run in the background and flushes the recorder,
// so the run is in the store when the browser is sent to its timeline.
func (w uiWorkflows) Start(ctx context.Context, r web.WorkflowRunRequest) (web.WorkflowExecution, error) {
	if w.u.draining.Load() {
		return nil, errShuttingDown
	}
	ex := workflow.Start(ctx, w.u.rt, r.Workflow, r.Model, workflow.Options{Inputs: r.Inputs})
	w.u.track(ex.Done(), nil)
	_ = w.u.rec.Flush(ctx)
	return ex, nil
}

// watchWorkflows watches the workflows folder into a catalog for the web
// (cfg.Workflows, default "workflows"; a missing default folder is no
// workflows, a missing configured one an error). Its workflows are checked
// against the registry's agents again whenever those change.
func watchWorkflows(cfg Config, reg *registry.Registry, log *slog.Logger, web *web.Config) (func(), error) {
	dir := cfg.Workflows
	if dir == "" {
		dir = "workflows"
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			return func() {}, nil
		}
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("workflows folder %q: not a readable folder", dir)
	}
	cat := workflow.NewCatalog(func(name string) bool { _, ok := reg.Snapshot().Agent(name); return ok })
	f, err := folder.OpenContents(dir, cat, folder.Config{Log: log})
	if err != nil {
		return nil, fmt.Errorf("watch workflows: %w", err)
	}
	changes, unsubscribe := reg.Subscribe()
	go func() {
		for range changes {
			cat.Recheck()
		}
	}()
	web.Workflows, web.WorkflowFiles = cat, f
	return func() { unsubscribe(); f.Close() }, nil
}

// followUp makes req a follow-up in the conversation of run cont (the
// reply box); nothing when cont is "".
func (u *uiRunner) followUp(ctx context.Context, cont string, req *delegation.Request) error {
	if cont == "" {
		return nil
	}
	if u.store == nil {
		return errors.New("this trace store keeps no conversations, so a run cannot be continued from here")
	}
	conv, _, err := conversationOf(ctx, u.store, cont)
	if err != nil {
		return err
	}
	stored, err := u.store.ConversationMessages(ctx, conv)
	if err != nil {
		return err
	}
	req.Conversation, req.History = conv, fromStored(stored)
	return nil
}

// wait waits at most d, or until hurry closes, for the runs started here
// to end, and reports whether they did.
func (u *uiRunner) wait(d time.Duration, hurry <-chan struct{}) bool {
	done := make(chan struct{})
	go func() { u.running.Wait(); close(done) }()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-done:
		return true
	case <-timer.C:
	case <-hurry:
	}
	select { // a run that ended at the deadline counts
	case <-done:
		return true
	default:
		return false
	}
}

// checkExposure refuses a non-loopback address without a token.
func checkExposure(addr, token string) error {
	if token != "" || isLoopback(addr) {
		return nil
	}
	return fmt.Errorf("%w (--addr %s)", errExposed, addr)
}

// isLoopback reports whether addr listens on this machine only. An empty
// host (":8080") listens on every interface, so it is not loopback.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkToken returns the access token without surrounding spaces, or an
// error when one is set but shorter than web.MinTokenLen: a token of one
// character (or " ") guards nothing.
func checkToken(token string) (string, error) {
	t := strings.TrimSpace(token)
	if token != "" && utf8.RuneCountInString(t) < web.MinTokenLen {
		return "", fmt.Errorf("the access token (--token, AGENTRY_TOKEN or token:) must have at least %d characters besides spaces, got %d; make one with: openssl rand -hex 16",
			web.MinTokenLen, utf8.RuneCountInString(t))
	}
	return t, nil
}

// browseURL is an address a person can open for listen address addr; with
// a token it carries it once, and the UI turns it into a cookie. An
// unspecified host (":8080", "0.0.0.0", "[::]") cannot be opened, so the
// URL names loopback and the note names this machine for other computers.
func browseURL(addr, token string, hostname func() (string, error)) (open, note string) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		host, port = addr, ""
	}
	query := ""
	if token != "" {
		query = "?token=" + url.QueryEscape(token)
	}
	at := func(h string) string {
		if port == "" {
			return "http://" + h + "/" + query
		}
		return "http://" + net.JoinHostPort(h, port) + "/" + query
	}
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		return at(host), ""
	}
	note = "listening on every network interface"
	if name, err := hostname(); err == nil && name != "" {
		note += "; from another computer open " + at(name)
	}
	return at("127.0.0.1"), note
}

// modelChoices are the model names the editor suggests: the default, the
// aliases, and the offline built-ins.
func modelChoices(cfg Config) []string {
	aliases := make([]string, 0, len(cfg.Models.Aliases))
	for alias := range cfg.Models.Aliases {
		aliases = append(aliases, alias)
	}
	slices.Sort(aliases)
	var out []string
	for _, m := range append([]string{"inherit", cfg.Models.Default, "demo"}, aliases...) {
		if m != "" && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}
