package temporal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/trace"
)

// Defaults of the config's temporal: section.
const (
	DefaultAddress   = "localhost:7233"
	DefaultNamespace = "default"
	DefaultTaskQueue = "agentry"
)

// Config says where runs go: the Temporal frontend, its namespace, and the
// task queue the workers serve.
type Config struct {
	Address, Namespace, TaskQueue string
}

func (c Config) withDefaults() Config {
	if c.Address == "" {
		c.Address = DefaultAddress
	}
	if c.Namespace == "" {
		c.Namespace = DefaultNamespace
	}
	if c.TaskQueue == "" {
		c.TaskQueue = DefaultTaskQueue
	}
	return c
}

// Engine submits runs to Temporal and serves them on workers. Safe for
// concurrent use; Close closes its client.
type Engine struct {
	cfg    Config
	client client.Client
}

// Dial connects to the Temporal frontend at cfg.Address. The SDK's own log
// lines go to logger (nil: discarded).
func Dial(ctx context.Context, cfg Config, logger *slog.Logger) (*Engine, error) {
	cfg = cfg.withDefaults()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c, err := client.DialContext(ctx, client.Options{HostPort: cfg.Address, Namespace: cfg.Namespace,
		Logger: log.NewStructuredLogger(logger)})
	if err != nil {
		return nil, fmt.Errorf("temporal at %s: %w", cfg.Address, err)
	}
	return &Engine{cfg: cfg, client: c}, nil
}

// Close closes the connection.
func (e *Engine) Close() { e.client.Close() }

// RegisterNamespace creates the engine's namespace when it does not exist
// (a fresh development server has none), keeping histories for retention.
func (e *Engine) RegisterNamespace(ctx context.Context, retention time.Duration) error {
	nc, err := client.NewNamespaceClient(client.Options{HostPort: e.cfg.Address, Logger: log.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	if err != nil {
		return err
	}
	defer nc.Close()
	err = nc.Register(ctx, &workflowservice.RegisterNamespaceRequest{Namespace: e.cfg.Namespace,
		WorkflowExecutionRetentionPeriod: durationpb.New(retention)})
	if errors.As(err, new(*serviceerror.NamespaceAlreadyExists)) {
		return nil
	}
	return err
}

// Serve runs a worker on the engine's task queue with acts until ctx ends,
// then stops it (activities in flight are cancelled; another worker
// retries them). ready, when not nil, is called once the worker polls.
func (e *Engine) Serve(ctx context.Context, acts *Activities, ready func()) error {
	// A workflow's next task goes to the worker that ran its last one
	// (sticky) and reaches the others only after this timeout when that
	// worker is gone: the SDK's 5 s default was half of a killed worker's
	// recovery time in the end-to-end test.
	w := worker.New(e.client, e.cfg.TaskQueue, worker.Options{StickyScheduleToStartTimeout: 2 * time.Second})
	Register(w, acts)
	if err := w.Start(); err != nil {
		return fmt.Errorf("start worker on task queue %q: %w", e.cfg.TaskQueue, err)
	}
	if ready != nil {
		ready()
	}
	<-ctx.Done()
	w.Stop()
	return nil
}

// Config returns the engine's configuration, defaults filled in.
func (e *Engine) Config() Config { return e.cfg }

// Register puts the workflows and activities on w (a worker or the SDK's
// test environment).
func Register(w interface {
	RegisterWorkflowWithOptions(any, workflow.RegisterOptions)
	RegisterActivity(any)
}, acts *Activities) {
	w.RegisterWorkflowWithOptions(RunWorkflow, workflow.RegisterOptions{Name: RunWorkflowName})
	w.RegisterWorkflowWithOptions(InvocationWorkflow, workflow.RegisterOptions{Name: InvocationWorkflowName})
	w.RegisterWorkflowWithOptions(ApprovalWorkflow, workflow.RegisterOptions{Name: ApprovalWorkflowName})
	w.RegisterActivity(acts)
	registerFlows(w, acts) // YAML workflows (workflows.go)
}

// submitted is a run submitted to Temporal: its workflow, whose ID is the
// run's trace ID, so the trace and the workflow name each other.
type submitted struct {
	e   *Engine
	id  string
	run client.WorkflowRun
}

// submit starts a new run as workflow name, its input made from the run's
// record (what names the run in an error).
func (e *Engine) submit(ctx context.Context, what, name string, input func(trace.Run) any) (submitted, error) {
	run := trace.Run{ID: trace.NewRunID(), StartedAt: time.Now().UTC()}
	wr, err := e.client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: run.ID, TaskQueue: e.cfg.TaskQueue,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE}, name, input(run))
	if err != nil {
		return submitted{}, fmt.Errorf("submit %s to temporal: %w", what, err)
	}
	return submitted{e: e, id: run.ID, run: wr}, nil
}

// RunID is the run's trace ID (and workflow ID).
func (x *submitted) RunID() string { return x.id }

// Cancel cancels the run's workflow: every branch stops and its spans end
// cancelled.
func (x *submitted) Cancel(ctx context.Context) error {
	return x.e.client.CancelWorkflow(ctx, x.id, "")
}

// Execution is an agent's run submitted to Temporal.
type Execution struct{ submitted }

// Start submits a run. timeout bounds the whole run (0: none).
func (e *Engine) Start(ctx context.Context, req delegation.Request, timeout time.Duration) (*Execution, error) {
	x, err := e.submit(ctx, "run", RunWorkflowName, func(run trace.Run) any { return RunInput{Run: run, Request: req, Timeout: timeout} })
	if err != nil {
		return nil, err
	}
	return &Execution{x}, nil
}

// Wait waits for the run's result, the root agent's messages included.
func (x *Execution) Wait(ctx context.Context) (delegation.Result, error) {
	var res RunResult
	if err := x.run.Get(ctx, &res); err != nil {
		return delegation.Result{RunID: x.id, Status: trace.StatusError, Error: message(err)}, err
	}
	res.Result.Messages = res.Messages
	return res.Result, nil
}

// Ping checks that the namespace is usable: it lists the namespace's
// workflows, which fails until a newly registered namespace is known to the
// frontend.
func (e *Engine) Ping(ctx context.Context) error {
	_, err := e.client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: e.cfg.Namespace, PageSize: 1})
	return err
}
