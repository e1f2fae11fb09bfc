package workflow

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// callResult is one agent's part in a step, after retries and the failure policy.
type callResult struct {
	status   string // StepOK, StepFallback, StepSkipped, StepError, StepTimeout, StepCancelled
	text     string
	value    any
	err      string
	verdicts []Verdict
}

// call runs agent id on input (extra is appended: feedback, an element),
// with its retry policy, validation, and on_failure.
func (st *stepRun) call(ctx context.Context, id, input, extra string) callResult {
	a := st.e.wf.Agents[id]
	c := st.attempts(ctx, id, a, input, extra)
	if c.status == StepOK || ctx.Err() != nil || a == nil {
		return c
	}
	switch a.OnFailure {
	case "skip":
		st.note("%s failed (%s); skipped, output null", id, c.err)
		return callResult{status: StepSkipped, err: c.err, verdicts: c.verdicts}
	case "fallback":
		st.note("%s failed (%s); fallback %s", id, c.err, a.Fallback)
		st.span.Event("fallback", map[string]any{"agent": id, "fallback": a.Fallback, "error": c.err})
		fb := st.attempts(ctx, a.Fallback, st.e.wf.Agents[a.Fallback], input, extra)
		if fb.status == StepOK {
			fb.status = StepFallback
			return fb
		}
		fb.err = fmt.Sprintf("fallback %s failed too: %s", a.Fallback, fb.err)
		if fb.status == StepSkipped {
			fb.status = StepError
		}
		return fb
	}
	return c
}

// attempts runs one agent up to its max_attempts, with backoff between runs.
func (st *stepRun) attempts(ctx context.Context, id string, a *Agent, input, extra string) callResult {
	max, backoff := 1, "none"
	if a != nil {
		max, backoff = a.Retry.MaxAttempts, a.Retry.Backoff
	}
	var last callResult
	for n := 1; n <= max; n++ {
		st.amu.Lock()
		st.r.Attempts++
		if n > 1 {
			st.r.Retries++
		}
		st.amu.Unlock()
		last = st.once(ctx, id, a, input, extra)
		if last.status == StepOK || ctx.Err() != nil {
			return last
		}
		if n < max {
			wait := delay(st.e.opt.RetryBase, backoff, n)
			st.span.Event(semconv.EventRetry, map[string]any{semconv.EventAttrAttempt: n + 1, semconv.EventAttrWaitMS: wait.Milliseconds(),
				semconv.EventAttrError: last.err, semconv.EventAttrAgent: id})
			st.note("%s attempt %d failed: %s", id, n, last.err)
			if err := st.e.opt.Sleep(ctx, wait); err != nil {
				return callResult{status: ctxStatusOr(ctx), err: err.Error()}
			}
		}
	}
	return last
}

func ctxStatusOr(ctx context.Context) string {
	if ctx.Err() == nil {
		return StepError
	}
	return ctxStatus(ctx)
}

// delay is the wait before attempt n+1, as seed 000's retry logic has it
// with base for its second: linear waits (n+1)×5 s, exponential 2^(n+1) s
// (the attempt about to start, counting from 1), constant 5 s each time.
func delay(base time.Duration, kind string, n int) time.Duration {
	next := time.Duration(n + 1)
	switch kind {
	case "linear":
		return next * 5 * base
	case "exponential":
		return base << next
	case "constant":
		return 5 * base
	}
	return 0
}

// once is one invocation and the check of its output.
func (st *stepRun) once(ctx context.Context, id string, a *Agent, input, extra string) callResult {
	agent, task, err := st.agent(id, a, input, extra)
	if err != nil {
		return callResult{status: StepError, err: err.Error()}
	}
	out := st.e.host.Invoke(ctx, st.span.ID(), agent, task)
	switch out.Status {
	case trace.StatusOK:
	case trace.StatusTimeout:
		return callResult{status: StepTimeout, err: out.Error}
	case trace.StatusCancelled:
		return callResult{status: StepCancelled, err: out.Error}
	default:
		return callResult{status: StepError, err: out.Error}
	}
	var judge Judge
	if !st.e.opt.NoJudge {
		judge = func(rule, output string) (bool, string, error) { return st.judge(ctx, rule, output) }
	}
	v, verdicts, verr := validate(a, st.formatFor(id), out.Result, judge)
	if verr != nil {
		return callResult{status: StepError, text: out.Result, err: verr.Error(), verdicts: verdicts}
	}
	return callResult{status: StepOK, text: out.Result, value: v, verdicts: verdicts}
}

// agent builds the registry agent and the task for one invocation: an
// inline agent's prompt is rendered now, against the outputs so far.
func (st *stepRun) agent(id string, a *Agent, input, extra string) (registry.Agent, string, error) {
	if a == nil {
		ra, ok := st.e.host.Agent(id)
		if !ok {
			return registry.Agent{}, "", fmt.Errorf("agent %s is not in the agents folder", id)
		}
		return ra, join(input, extra), nil
	}
	name := a.Name
	if name == "" {
		name = a.ID
	}
	system := "You are " + name + "."
	if a.Role != "" {
		system += " Your role: " + a.Role + "."
	}
	system += " You are one step of the workflow " + st.e.wf.Name + "; answer with the step's output only."
	prompt := st.e.render(a.Prompt, st.s)
	task := prompt
	if strings.TrimSpace(input) != "" && !strings.Contains(prompt, input) {
		task = join(prompt, "Input:\n"+input)
	}
	task = join(task, st.requirements(id, a))
	// An inline agent gets exactly the tools it lists: steps do not
	// delegate, so it denies every sub-agent (general-purpose included,
	// which an empty allow list would leave it) and is offered neither
	// delegate nor get_agent_results.
	ra := registry.Agent{Name: a.ID, Description: a.Role, Tools: a.Rules, Timeout: a.Timeout, Enabled: true,
		Subagents: registry.Subagents{Rules: permissions.Rules{Allow: []string{}, Deny: []string{"*"}}},
		Retry:     registry.Retry{MaxAttempts: registry.DefaultMaxAttempts, Backoff: registry.BackoffExponential},
		Prompt:    system, File: st.e.wf.File}
	return ra, join(task, extra), nil
}

func join(a, b string) string {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}

// JudgeAgent is the name the rule judge runs as (a script model's key).
const JudgeAgent = "rule-judge"

// judge asks the validator model whether output meets rule; the answer's
// first word is PASS or FAIL.
func (st *stepRun) judge(ctx context.Context, rule, output string) (bool, string, error) {
	agent := registry.Agent{Name: JudgeAgent, Enabled: true, Description: "judges plain-English validation rules",
		Retry:  registry.Retry{MaxAttempts: registry.DefaultMaxAttempts, Backoff: registry.BackoffExponential},
		Prompt: "You check one rule against an output. Answer PASS or FAIL, then a colon and one short reason."}
	task := "Judge whether the output meets the rule.\nRule: " + rule + "\n\nOutput:\n" + output
	out := st.e.host.Invoke(ctx, st.span.ID(), agent, task)
	if out.Status != trace.StatusOK {
		return false, "", fmt.Errorf("judge %s: %s", out.Status, out.Error)
	}
	verdict := strings.ToUpper(strings.TrimSpace(out.Result))
	reason := strings.TrimSpace(out.Result)
	switch {
	case strings.HasPrefix(verdict, "PASS"):
		return true, reason, nil
	case strings.HasPrefix(verdict, "FAIL"):
		return false, reason, nil
	}
	return false, "", fmt.Errorf("judge answered neither PASS nor FAIL: %q", firstLine(reason))
}

// formatFor is the output format agent id's answer must have: the step's,
// except for a loop's validator and a map's per-element agent, whose
// answers are read as JSON when they look like it.
func (st *stepRun) formatFor(id string) string {
	if lp := st.s.Loop; lp != nil && id == lp.Validator && id != lp.Agent {
		return ""
	}
	if m := st.s.Map; m != nil && id == m.Agent && id != m.Reduce {
		return ""
	}
	return st.s.Output.Format
}

// requirements tells the agent what its output is checked against, so a
// model can meet the rules rather than be retried into them.
func (st *stepRun) requirements(id string, a *Agent) string {
	var lines []string
	if st.formatFor(id) == "json" {
		lines = append(lines, "- Answer with JSON only.")
	}
	for _, r := range a.RuleTexts {
		lines = append(lines, "- "+r)
	}
	if len(lines) == 0 {
		return ""
	}
	return "Requirements for your output:\n" + strings.Join(lines, "\n")
}
