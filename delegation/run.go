package delegation

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/orchestrator"
	"github.com/agentry/agentry/delegation/sched"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// Request asks for one run.
type Request struct {
	Agent string
	Task  string
	// Model, when set, overrides every agent's model spec for this run (so
	// `--model script:FILE` drives the whole tree).
	Model string
	// Conversation, when set, is the conversation the run continues
	// (gen_ai.conversation.id): its runs share the sliding window of tool
	// calls. "" makes the run a conversation of its own.
	Conversation string
	// History is the conversation so far (the root agent's earlier
	// messages), given to the root agent before Task (conversation.go).
	History []model.Message
	// Budget, where set, overrides the configured and the agent's budget
	// measure by measure (the --budget-* flags); see EffectiveBudget.
	Budget registry.Budget
	// Tools, when set, is one more level of every permission chain of the
	// run, named CallerLevel, between the global level and the root agent:
	// an outside tool's run is held to the exposure's permissions
	// (expose.permissions) as well as to everything else.
	Tools *permissions.Rules
	// Inline, when set, is the root agent itself, not looked up by Agent:
	// a slash command's (skills.Command.Agent), which is no file.
	Inline *registry.Agent
	// Attributes are put on the root invoke_agent span, under keys the
	// runtime does not set itself: tags that say why the run was made
	// (replay_of, eval_suite, eval_case), who asked for it (an MCP or A2A
	// client) and the traceparent of the caller's trace.
	Attributes map[string]any
}

// CallerLevel names Request.Tools' level in permission chains and their
// explanations ("denied by expose: ...").
const CallerLevel = permissions.ExposeLevel

// Result is how a run ended, shaped as `agentry run --json` prints it.
type Result struct {
	RunID  string       `json:"run_id"`
	Status trace.Status `json:"status"`
	Result string       `json:"result"`
	Error  string       `json:"error"`
	// Conversation is the conversation the run belongs to (its own ID when
	// it started one), and Messages the root agent's messages at the end,
	// History included, for the next follow-up.
	Conversation string          `json:"conversation_id,omitempty"`
	Messages     []model.Message `json:"-"`
	// Limit names, for a run that a limit stopped (status limit), the
	// setting behind it and how to raise it.
	Limit *LimitStop `json:"limit,omitempty"`
}

// LimitStop is the limit that stopped a run: its setting
// ("limits.window_calls", "max_turns", ...) and how to raise it.
type LimitStop struct {
	Setting string `json:"setting"`
	Raise   string `json:"raise"`
}

// StoppedBy is the limit that stopped a run that ended with status and
// error errText, or nil when none did (or none that a setting names).
func StoppedBy(status trace.Status, errText string) *LimitStop {
	if status != trace.StatusLimit {
		return nil
	}
	if setting, hint := control.LimitHint(errText); setting != "" {
		return &LimitStop{Setting: setting, Raise: hint}
	}
	return nil
}

// Execution is a run in progress.
type Execution struct {
	id     string
	done   chan struct{}
	cancel context.CancelCauseFunc
	result Result
}

// RunID returns the run's trace ID.
func (e *Execution) RunID() string { return e.id }

// Done is closed when the run has ended and its trace is final.
func (e *Execution) Done() <-chan struct{} { return e.done }

// Result waits for the run to end and returns how it ended.
func (e *Execution) Result() Result {
	<-e.done
	return e.result
}

// Cancel stops every branch of the run; their spans end as cancelled.
func (e *Execution) Cancel() { e.cancel(ErrCancelled) }

// run is the state one Execution shares across its tree.
type run struct {
	rt        *Runtime
	agents    agentSet
	sink      trace.Sink
	global    *sched.FIFO
	models    *modelCache
	cancel    context.CancelCauseFunc
	invokes   atomic.Int64 // invocations so far, for MaxAgentsPerRun
	tokens    atomic.Int64
	seq       atomic.Int64   // tool-call IDs for models that give none
	spanID    func() string  // nil: trace.NewSpanID; set by Steps
	root      registry.Agent // the agent the run starts with, its model and task
	rootModel resolved
	task      string
	// conversation keys the sliding window and the circuit breakers:
	// Request.Conversation or the run's ID.
	conversation string
	// limits are the run's limit hierarchy: its root agent's (an
	// orchestrator conversation's, or every other run's).
	limits   orchestrator.Limits
	history  []model.Message // Request.History
	tags     map[string]any  // Request.Attributes, for the root span
	rootConv []model.Message // the root agent's messages at its end
	budget   budget          // budget.go
	forRun   forRun          // subjects approved for the rest of the run (approval.go)
	skills   runSkills       // the run's Library of skills (skills_run.go)
	// above is the root agent's parent in the toolset tree: nil, or the
	// global and Request.Tools levels (callerSet).
	above *toolset

	mu    sync.Mutex
	trace trace.Run
}

// Start checks the request, records the run and starts it. An unknown or
// disabled agent and an unknown model end the run before it starts: the
// error is a *RejectedError, and the trace holds that run with status error
// and the reason, so a bad request is as visible as a failed run. The run
// outlives ctx (only its values are used), so a web handler can start a run
// and return; it ends by itself, by its timeout, or by Cancel.
func (r *Runtime) Start(ctx context.Context, req Request) (*Execution, error) {
	ctx, e, rn, err := r.prepare(ctx, req)
	if err != nil {
		return nil, err
	}
	go e.execute(ctx, rn)
	return e, nil
}

// prepare is Start up to the point where the run's tree begins: the run is
// recorded, and its execution and context made for the caller to execute.
func (r *Runtime) prepare(ctx context.Context, req Request) (context.Context, *Execution, *run, error) {
	agents := r.snapshot()
	agent, ok := agents.Agent(req.Agent)
	if req.Inline != nil {
		agent, ok = *req.Inline, true
	}
	if !ok {
		return nil, nil, nil, r.reject(req, fmt.Errorf("start %q: %w", req.Agent, ErrUnknownAgent))
	}
	if dec := r.cfg.Delegation.Runnable(agent.Permissions()); !dec.Allowed {
		return nil, nil, nil, r.reject(req, fmt.Errorf("start %q: %w: %s", req.Agent, ErrAgentDisabled, dec.Reason))
	}
	models := r.newModelCache(req.Model)
	m, err := models.forAgent(&agent, nil)
	if err != nil {
		return nil, nil, nil, r.reject(req, fmt.Errorf("start %q: %w", req.Agent, err))
	}
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	rn := &run{rt: r, agents: agents, sink: r.cfg.Sink, global: sched.NewFIFO(r.cfg.MaxConcurrent), models: models, cancel: cancel}
	rn.trace = trace.Run{ID: trace.NewRunID(), Agent: agent.Name, Task: req.Task, Model: m.spec,
		Status: trace.StatusRunning, StartedAt: r.cfg.Now()}
	rn.conversation, rn.history, rn.limits, rn.tags = req.Conversation, req.History, r.limitsFor(&agent), req.Attributes
	if rn.conversation == "" {
		rn.conversation = rn.trace.ID
	}
	rn.sink.RecordRun(rn.trace)
	rn.startBudget(control.EffectiveBudget(r.cfg.Budget, agent.Budget, req.Budget))
	rn.root, rn.rootModel, rn.task = agent, m, req.Task
	if req.Tools != nil {
		rn.above = r.callerSet(*req.Tools)
	}
	e := &Execution{id: rn.trace.ID, done: make(chan struct{}), cancel: cancel}
	return ctx, e, rn, nil
}

// RejectedError is a run that ended before it started; RunID names its trace.
type RejectedError struct {
	RunID string
	Err   error
}

func (e *RejectedError) Error() string { return e.Err.Error() }
func (e *RejectedError) Unwrap() error { return e.Err }

// reject records a run that could not start, with why, and returns err as a *RejectedError.
func (r *Runtime) reject(req Request, err error) error {
	now := r.cfg.Now()
	id := trace.NewRunID()
	r.cfg.Sink.RecordRun(trace.Run{ID: id, Agent: req.Agent, Task: req.Task, Model: req.Model,
		Status: trace.StatusError, StartedAt: now, EndedAt: now, Error: err.Error()})
	return &RejectedError{RunID: id, Err: err}
}

// Run starts a run and waits for it; when ctx ends first the run is
// cancelled, and Run still waits for its trace to be final.
//
// The run executes on the caller's goroutine: its stack has already grown,
// where a new goroutine's would be copied several times over as the tree
// deepens, and no hand-off between goroutines starts or ends it.
func (r *Runtime) Run(ctx context.Context, req Request) (Result, error) {
	rctx, e, rn, err := r.prepare(ctx, req)
	if err != nil {
		return Result{}, err
	}
	stop := context.AfterFunc(ctx, e.Cancel)
	e.execute(rctx, rn)
	stop()
	return e.result, nil
}

// execute runs the prepared run to its end.
func (e *Execution) execute(ctx context.Context, rn *run) {
	agent, m, task := rn.root, rn.rootModel, rn.task
	defer close(e.done)
	defer rn.cancel(nil)
	if d := rn.rt.cfg.Timeout; d > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, d, ErrRunTimeout)
		defer stop()
	}
	var out loop.Outcome
	func() {
		defer func() {
			if v := recover(); v != nil {
				out = loop.Outcome{Status: trace.StatusError, Error: recovered("run", v).Error()}
			}
		}()
		out = rn.invokeRoot(ctx, agent, m, task)
	}()
	if why := rn.budgetSpent(); why != "" && out.Status != trace.StatusOK {
		out = loop.Outcome{Status: trace.StatusLimit, Result: rn.report(why), Error: "budget spent: " + why}
	}
	e.result = Result{RunID: e.id, Status: out.Status, Result: out.Result, Error: out.Error,
		Conversation: rn.conversation, Messages: rn.rootConv, Limit: StoppedBy(out.Status, out.Error)}
	rn.mu.Lock()
	rn.trace.Status, rn.trace.Result, rn.trace.Error = out.Status, out.Result, out.Error
	rn.trace.EndedAt = rn.rt.cfg.Now()
	final := rn.trace
	rn.mu.Unlock()
	rn.sink.RecordRun(final)
	rn.rt.cfg.Logger.Info("run ended", "run", e.id, "agent", agent.Name, "status", out.Status)
}

// addTokens keeps the run's totals current and stops the run when it goes
// over its token budget.
func (rn *run) addTokens(in, out int64) {
	total := rn.tokens.Add(in + out)
	rn.mu.Lock()
	rn.trace.InputTokens += in
	rn.trace.OutputTokens += out
	snap := rn.trace
	rn.mu.Unlock()
	rn.sink.RecordRun(snap)
	rn.checkBudget(total, snap.CostUSD)
	if b := rn.rt.cfg.TokenBudget; b > 0 && total > b {
		rn.cancel(fmt.Errorf("%w: %d tokens used of %d", ErrTokenBudget, total, b))
	}
}

// countAgent records one more invocation and reports whether it is within
// MaxAgentsPerRun.
func (rn *run) countAgent() bool {
	n := rn.invokes.Add(1)
	if max := rn.rt.cfg.MaxAgentsPerRun; max > 0 && n > int64(max) {
		rn.invokes.Add(-1)
		return false
	}
	rn.mu.Lock()
	rn.trace.Agents = int(n)
	snap := rn.trace
	rn.mu.Unlock()
	rn.sink.RecordRun(snap)
	return true
}
