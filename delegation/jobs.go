package delegation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// job is one agent an invocation started in the background: a dispatched
// ad-hoc agent or a delegate call with background: true. Its fields after
// done is closed are final.
type job struct {
	id      string
	agent   string
	done    chan struct{}
	started time.Time

	// Set once, before done closes.
	status    trace.Status
	result    string
	err       string
	toolCalls int
	ended     time.Time

	collected bool // its result reached the model (guarded by jobs.mu)
	stream    bool // a parallel_streaming delegation: its result comes unasked
}

// jobs are an invocation's background agents. Their goroutines run under
// ctx, which the invocation cancels when it ends, and it waits for them, so
// no span outlives its run.
type jobs struct {
	mu     sync.Mutex
	byID   map[string]*job
	order  []*job
	wg     sync.WaitGroup
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// ErrDispatcherEnded stops background agents still running when the
// invocation that started them has ended.
var ErrDispatcherEnded = errors.New("the agent that started it has ended")

// jobTable returns the invocation's jobs, creating them under ctx.
func (inv *invocation) jobTable(ctx context.Context) *jobs {
	if inv.jobs == nil {
		c, cancel := context.WithCancelCause(ctx)
		inv.jobs = &jobs{byID: map[string]*job{}, ctx: c, cancel: cancel}
	}
	return inv.jobs
}

// add registers a job; false when its id is taken.
func (js *jobs) add(j *job) bool {
	js.mu.Lock()
	defer js.mu.Unlock()
	if _, dup := js.byID[j.id]; dup {
		return false
	}
	j.done = make(chan struct{})
	js.byID[j.id] = j
	js.order = append(js.order, j)
	return true
}

func (js *jobs) get(id string) *job {
	js.mu.Lock()
	defer js.mu.Unlock()
	return js.byID[id]
}

// start runs fn in the background as job j; fn's outcome and tool-call
// count become the job's, a panic in fn an error. ended, when not nil,
// hears that outcome before anyone waiting for j does.
func (js *jobs) start(j *job, now func() time.Time, fn func(ctx context.Context) (outcome, int), ended func(outcome, int)) {
	js.wg.Add(1)
	go func() {
		defer js.wg.Done()
		var o outcome
		var calls int
		func() {
			defer func() {
				if v := recover(); v != nil {
					o = outcome{status: trace.StatusError, err: recovered("background agent "+j.id, v).Error()}
				}
			}()
			o, calls = fn(js.ctx)
		}()
		if ended != nil {
			ended(o, calls)
		}
		j.end(o, calls, now())
	}()
}

// end records how j ended and wakes whoever waits for it.
func (j *job) end(o outcome, calls int, at time.Time) {
	j.status, j.result, j.err, j.toolCalls, j.ended = o.status, o.result, o.err, calls, at
	close(j.done)
}

// stopJobs ends the background agents still running when the invocation
// ends, and waits for them.
func (inv *invocation) stopJobs() {
	if inv.jobs == nil {
		return
	}
	inv.jobs.cancel(ErrDispatcherEnded)
	inv.jobs.wg.Wait()
}

// agentReport is one entry of get_agent_results, seed 001's §2.3 shape.
type agentReport struct {
	AgentID       string `json:"agent_id"`
	Agent         string `json:"agent,omitempty"`
	Status        string `json:"status"`
	Result        string `json:"result"`
	ToolCallsUsed int    `json:"tool_calls_used"`
	DurationMS    int64  `json:"duration_ms"`
	Error         string `json:"error,omitempty"`
}

// reportStatus names a job's status as seed 001 does: completed and failed
// for ok and error, the trace status otherwise (timeout, limit, skipped...).
func reportStatus(s trace.Status) string {
	switch s {
	case trace.StatusOK:
		return "completed"
	case trace.StatusError:
		return "failed"
	case "":
		return "running"
	}
	return string(s)
}

func (j *job) report(now time.Time) agentReport {
	select {
	case <-j.done:
		return agentReport{AgentID: j.id, Agent: j.agent, Status: reportStatus(j.status), Result: j.result,
			ToolCallsUsed: j.toolCalls, DurationMS: j.ended.Sub(j.started).Milliseconds(), Error: j.err}
	default:
		return agentReport{AgentID: j.id, Agent: j.agent, Status: "running", DurationMS: now.Sub(j.started).Milliseconds()}
	}
}

// GetAgentResultsTool collects the results of background agents.
const GetAgentResultsTool = "get_agent_results"

func getAgentResultsSpec() model.Tool {
	return model.Tool{
		Name: GetAgentResultsTool,
		Description: "Wait for agents you started in the background (dispatch_agent, or delegate with background: true) " +
			"and get their results. Without agent_ids it waits for every one whose result you have not had yet.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"agent_ids":{"type":"array","items":{"type":"string"},` +
			`"description":"ids of the agents to wait for; omit to wait for all."}},"required":[]}`),
	}
}

// getAgentResults blocks until the named jobs (or every uncollected one)
// finish, giving up this invocation's run-wide slot meanwhile so the jobs
// can run, and returns their reports.
func (inv *invocation) getAgentResults(ctx context.Context, c model.ToolCall) string {
	sp := inv.rn.startSpan(trace.KindExecuteTool, "execute_tool "+GetAgentResultsTool, inv.span.s.ID, inv.agent.Name, inv.depth,
		map[string]any{semconv.AttrToolName: GetAgentResultsTool, semconv.AttrToolArguments: string(c.Args)})
	var args struct {
		AgentIDs []string `json:"agent_ids"`
	}
	if len(c.Args) > 0 && json.Unmarshal(c.Args, &args) != nil {
		out := "error: arguments must be {agent_ids?: [string]}"
		sp.end(trace.StatusError, out, map[string]any{semconv.AttrToolResult: out})
		return out
	}
	var want []*job
	var unknown []agentReport
	js := inv.jobs
	if js != nil {
		js.mu.Lock()
		if len(args.AgentIDs) == 0 {
			for _, j := range js.order {
				if !j.collected {
					want = append(want, j)
				}
			}
		}
		js.mu.Unlock()
	}
	for _, id := range args.AgentIDs {
		if js == nil || js.get(id) == nil {
			unknown = append(unknown, UnknownAgent(id))
			continue
		}
		want = append(want, js.get(id))
	}
	inv.waitJobs(ctx, want)
	now := inv.rn.rt.cfg.Now()
	out := struct {
		Agents []agentReport `json:"agents"`
	}{Agents: make([]agentReport, 0, len(want)+len(unknown))}
	if js != nil {
		js.mu.Lock()
	}
	for _, j := range want {
		r := j.report(now)
		j.collected = j.collected || r.Status != "running"
		out.Agents = append(out.Agents, r)
	}
	if js != nil {
		js.mu.Unlock()
	}
	out.Agents = append(out.Agents, unknown...)
	b, _ := json.Marshal(out)
	sp.end(trace.StatusOK, "", map[string]any{semconv.AttrToolResult: string(b)})
	return string(b)
}

// waitJobs waits for js to finish (or ctx to end) without holding a
// run-wide slot, so a cap of 1 cannot deadlock the dispatcher and its agents.
func (inv *invocation) waitJobs(ctx context.Context, js []*job) {
	if len(js) == 0 {
		return
	}
	if inv.slot {
		inv.rn.global.release()
		inv.slot = false
	}
	for _, j := range js {
		select {
		case <-j.done:
		case <-ctx.Done():
		}
	}
	if err := inv.rn.global.acquire(ctx); err == nil {
		inv.slot = true
	}
}

// uncollected waits for the background agents whose results the model has
// not had, and returns them as a message for one more turn ("" when there
// are none): a text answer while agents still run is not the last word.
func (inv *invocation) uncollected(ctx context.Context) string {
	if inv.jobs == nil {
		return ""
	}
	var left []*job
	inv.jobs.mu.Lock()
	for _, j := range inv.jobs.order {
		if !j.collected {
			left = append(left, j)
		}
	}
	inv.jobs.mu.Unlock()
	if len(left) == 0 {
		return ""
	}
	inv.waitJobs(ctx, left)
	now := inv.rn.rt.cfg.Now()
	reps := make([]agentReport, 0, len(left))
	inv.jobs.mu.Lock()
	for _, j := range left {
		j.collected = true
		reps = append(reps, j.report(now))
	}
	inv.jobs.mu.Unlock()
	return LateResults(reps)
}

// AgentReport is one entry of get_agent_results, for an engine that keeps
// the background agents itself (delegation/temporal).
type AgentReport = agentReport

// Report is the get_agent_results entry of a background agent that ended
// with o after took, having made calls tool calls.
func Report(id, agent string, o Outcome, calls int, took time.Duration) AgentReport {
	return agentReport{AgentID: id, Agent: agent, Status: reportStatus(o.Status), Result: o.Result,
		ToolCallsUsed: calls, DurationMS: took.Milliseconds(), Error: o.Error}
}

// UnknownAgent is the get_agent_results entry of an id nobody started.
func UnknownAgent(id string) AgentReport {
	return agentReport{AgentID: id, Status: "unknown", Error: fmt.Sprintf("no agent %q was started by this agent", id)}
}

// LateResults is the message that gives the model the results it did not
// ask for before answering, for one more turn.
func LateResults(reps []AgentReport) string {
	b, _ := json.Marshal(map[string]any{"agents": reps})
	return "These agents you started have finished since; take their results into account and give your final answer:\n" + string(b)
}
