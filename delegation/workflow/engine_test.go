package workflow

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/trace"
)

func TestSequentialTemplatesTraceAndReport(t *testing.T) {
	wf := mustParse(t, `workflow: {name: chain}
inputs:
  - {name: company, type: string, required: true}
agents:
  research: {prompt: "Research {{inputs.company}}"}
  write: {prompt: "Write about {{steps.research.output.name}} size {{facts.size}}"}
steps:
  - {id: research, agent: research, output: {store_as: facts, format: json}}
  - {id: write, agent: write, input: "{{steps.research.output}}", output: {format: markdown}}
`)
	h := newFake()
	h.say("research", "```json\n{\"name\": \"Acme\", \"size\": 40}\n```")
	h.say("write", "# Acme report")
	res := Execute(context.Background(), h, wf, Options{Inputs: map[string]any{"company": "Acme"}, Sleep: noSleep})
	if res.Status != StatusOK {
		t.Fatalf("status %s: %s", res.Status, res.Error)
	}
	if got := h.tasks["research"][0]; !strings.Contains(got, "Research Acme") {
		t.Errorf("research task %q", got)
	}
	if got := h.tasks["write"][0]; !strings.Contains(got, "Write about Acme size 40") || !strings.Contains(got, `"size":40`) {
		t.Errorf("write task %q", got)
	}
	if res.Outputs["facts"].(map[string]any)["name"] != "Acme" || res.Final != "# Acme report" {
		t.Errorf("outputs %v final %v", res.Outputs, res.Final)
	}
	root := h.span("invoke_workflow chain")
	step := h.span("step write")
	if root == nil || step == nil || step.parent != root.id || step.kind != trace.KindWorkflowStep || step.attrs["step_status"] != "ok" || step.attrs["attempts"] != 1 {
		t.Fatalf("spans: root %+v step %+v", root, step)
	}
	if inv := h.span("invoke_agent write"); inv == nil || inv.parent != step.id {
		t.Fatalf("agent span not below its step: %+v", inv)
	}
	rep := Report(wf, res)
	for _, want := range []string{"## Workflow Execution Report: chain", "- Status: COMPLETE", "| 2 write | write | SUCCESS |", "### Final Output\n\n# Acme report"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
}

func TestParallelAnyCancelsTheRest(t *testing.T) {
	wf := mustParse(t, `workflow: {name: p}
agents:
  fast: {prompt: "f"}
  slow: {prompt: "s"}
steps:
  - id: fan
    parallel:
      - {agent: fast, output_key: f}
      - {agent: slow, output_key: s}
    wait: any
`)
	h := newFake()
	h.say("fast", "quick")
	h.agents["slow"] = func(ctx context.Context, _ string, _ int) loop.Outcome {
		<-ctx.Done()
		return loop.Outcome{Status: trace.StatusCancelled, Error: "cancelled"}
	}
	res := Execute(context.Background(), h, wf, Options{Sleep: noSleep})
	if res.Status != StatusOK {
		t.Fatalf("status %s %s", res.Status, res.Error)
	}
	out := res.Outputs["fan"].(map[string]any)
	if out["f"] != "quick" || len(out) != 1 {
		t.Errorf("outputs %v", out)
	}
	br := h.span("step fan").attrs["branches"].([]map[string]any)
	if br[1]["status"] != StepCancelled {
		t.Errorf("slow branch %v", br[1])
	}
}

func TestConditionalRoutesAndErrorsTakeFalse(t *testing.T) {
	src := `workflow: {name: c}
agents:
  classify: {prompt: "c"}
  hot: {prompt: "hot"}
  cold: {prompt: "cold"}
steps:
  - {id: classify, agent: classify, output: {format: json}}
  - id: route
    type: conditional
    condition:
      eval: "{{steps.classify.output.score}} >= 80"
      true: hot_step
      false: cold
  - {id: hot_step, agent: hot}
`
	h := newFake()
	h.say("classify", `{"score": 91}`)
	h.say("hot", "proposal")
	h.say("cold", "nurture")
	res := Execute(context.Background(), h, mustParse(t, src), Options{Sleep: noSleep})
	if res.Status != StatusOK || h.calls["hot"] != 1 || h.calls["cold"] != 0 {
		t.Fatalf("hot path: %s calls %v", res.Status, h.calls)
	}
	cond := h.span("step route").attrs["condition"].(map[string]any)
	if cond["value"] != true || cond["expression"] == "" {
		t.Errorf("condition attr %v", cond)
	}

	h = newFake()
	h.say("classify", `{"score": "n/a"}`)
	h.say("hot", "proposal")
	h.say("cold", "nurture")
	res = Execute(context.Background(), h, mustParse(t, src), Options{Sleep: noSleep})
	if res.Status != StatusOK || h.calls["hot"] != 0 || h.calls["cold"] != 1 {
		t.Fatalf("error path: %s calls %v", res.Status, h.calls)
	}
	if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "false branch") {
		t.Errorf("warnings %v", res.Warnings)
	}
	if s := h.span("step hot_step"); s == nil || s.attrs["step_status"] != StepSkipped {
		t.Errorf("unchosen step not marked skipped: %+v", s)
	}
}

func TestLoopFeedbackAndMaxIterations(t *testing.T) {
	src := `workflow: {name: l}
agents:
  writer: {prompt: "write"}
  reviewer: {prompt: "review"}
steps:
  - id: refine
    type: loop
    loop:
      agent: writer
      validator: reviewer
      max_iterations: 3
      feedback_path: "{{steps.refine.output.feedback}}"
`
	h := newFake()
	h.agents["writer"] = func(_ context.Context, _ string, n int) loop.Outcome {
		return loop.Outcome{Status: trace.StatusOK, Result: "draft " + string(rune('0'+n))}
	}
	h.agents["reviewer"] = func(_ context.Context, _ string, n int) loop.Outcome {
		return loop.Outcome{Status: trace.StatusOK, Result: `{"passed": ` + map[bool]string{true: "true", false: "false"}[n == 2] + `, "feedback": "shorter please"}`}
	}
	res := Execute(context.Background(), h, mustParse(t, src), Options{Sleep: noSleep})
	if res.Status != StatusOK || res.Final != "draft 2" || h.calls["writer"] != 2 {
		t.Fatalf("status %s final %v calls %v", res.Status, res.Final, h.calls)
	}
	if !strings.Contains(h.tasks["writer"][1], "shorter please") || !strings.Contains(h.tasks["writer"][1], "draft 1") {
		t.Errorf("feedback not passed back: %q", h.tasks["writer"][1])
	}

	h.calls = map[string]int{}
	h.agents["reviewer"] = func(context.Context, string, int) loop.Outcome {
		return loop.Outcome{Status: trace.StatusOK, Result: `{"passed": false, "feedback": "no"}`}
	}
	res = Execute(context.Background(), h, mustParse(t, src), Options{Sleep: noSleep})
	if res.Status != StatusPartial || res.Steps[0].Status != StepMaxIterations || res.Final != "draft 3" || h.calls["reviewer"] != 3 {
		t.Fatalf("max iterations: %s %s %v %v", res.Status, res.Steps[0].Status, res.Final, h.calls)
	}
}

func TestMapConcurrencyAndReducer(t *testing.T) {
	wf := mustParse(t, `workflow: {name: m}
inputs:
  - {name: items, type: json, required: true}
agents:
  each: {prompt: "process"}
  sum: {prompt: "combine"}
steps:
  - id: fan
    type: map
    map: {over: "{{inputs.items}}", agent: each, reduce: sum, concurrency: 3}
`)
	h := newFake()
	var now, peak atomic.Int32
	h.agents["each"] = func(_ context.Context, task string, _ int) loop.Outcome {
		n := now.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(time.Millisecond)
		now.Add(-1)
		return loop.Outcome{Status: trace.StatusOK, Result: "done " + task[strings.LastIndex(task, "\n")+1:]}
	}
	h.say("sum", "all combined")
	items := make([]any, 12)
	for i := range items {
		items[i] = i
	}
	res := Execute(context.Background(), h, wf, Options{Inputs: map[string]any{"items": items}, Sleep: noSleep})
	if res.Status != StatusOK || res.Final != "all combined" || h.calls["each"] != 12 {
		t.Fatalf("%s %v %v", res.Status, res.Final, h.calls)
	}
	if peak.Load() > 3 {
		t.Errorf("peak concurrency %d > 3", peak.Load())
	}
	if !strings.Contains(h.tasks["sum"][0], `"done 11"`) {
		t.Errorf("reducer task %q", h.tasks["sum"][0])
	}
}

func TestRetryPoliciesAndFallback(t *testing.T) {
	src := `workflow: {name: r}
agents:
  flaky:
    prompt: "f"
    retry: {max_attempts: 3, backoff: linear}
    on_failure: POLICY
  backup: {prompt: "b"}
  after: {prompt: "a {{steps.one.output}}"}
steps:
  - {id: one, agent: flaky}
  - {id: two, agent: after}
`
	failing := func(context.Context, string, int) loop.Outcome {
		return loop.Outcome{Status: trace.StatusError, Error: "boom"}
	}
	for _, c := range []struct{ policy, status, one string }{
		{"skip", StatusPartial, StepSkipped},
		{"abort", StatusError, StepError},
		{"fallback:backup", StatusOK, StepFallback},
	} {
		h := newFake()
		h.agents["flaky"] = failing
		h.say("backup", "plan b")
		h.say("after", "fine")
		var waits []time.Duration
		sleep := func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
		res := Execute(context.Background(), h, mustParse(t, strings.Replace(src, "POLICY", c.policy, 1)),
			Options{Sleep: sleep, RetryBase: time.Millisecond})
		if res.Status != c.status || res.Steps[0].Status != c.one || h.calls["flaky"] != 3 {
			t.Errorf("%s: status %s step %s calls %v", c.policy, res.Status, res.Steps[0].Status, h.calls)
		}
		if len(waits) != 2 || waits[0] != 10*time.Millisecond || waits[1] != 15*time.Millisecond {
			t.Errorf("%s: linear waits %v, want seed 000's attempt×5 units: 10ms then 15ms", c.policy, waits)
		}
		if c.policy == "abort" && (res.Steps[1].Status != StepCancelled || h.calls["after"] != 0) {
			t.Errorf("abort: later step %s", res.Steps[1].Status)
		}
		if c.policy == "skip" && h.calls["after"] != 1 {
			t.Errorf("skip: workflow did not go on")
		}
	}
}

func TestValidationRulesSchemaAndJudge(t *testing.T) {
	wf := mustParse(t, `workflow: {name: v}
agents:
  pains:
    prompt: "p"
    retry: {max_attempts: 2}
    validation:
      schema:
        type: object
        required: [pains]
        properties:
          pains: {type: array, items: {type: object, required: [problem]}}
      rules:
        - "Must identify exactly 3 pain points"
        - "Each pain point must have problem, impact, and solution fields"
        - "Score must be between 0 and 100"
        - "The tone must be friendly"
steps:
  - {id: p, agent: pains, output: {format: json}}
`)
	h := newFake()
	h.agents["pains"] = func(_ context.Context, _ string, n int) loop.Outcome {
		if n == 1 {
			return loop.Outcome{Status: trace.StatusOK, Result: `{"pains": [{"problem": "a", "impact": "b", "solution": "c"}], "score": 50}`}
		}
		p := `{"problem": "a", "impact": "b", "solution": "c"}`
		return loop.Outcome{Status: trace.StatusOK, Result: `{"pains": [` + p + "," + p + "," + p + `], "score": 50}`}
	}
	h.say(JudgeAgent, "PASS: friendly enough")
	res := Execute(context.Background(), h, wf, Options{Sleep: noSleep})
	if res.Status != StatusOK || h.calls["pains"] != 2 || h.calls[JudgeAgent] != 1 {
		t.Fatalf("%s %s calls %v", res.Status, res.Error, h.calls)
	}
	if !strings.Contains(strings.Join(res.Steps[0].Notes, "\n"), "found 1, want exactly 3") {
		t.Errorf("notes %v", res.Steps[0].Notes)
	}
	vs := h.span("step p").attrs["validation"].([]Verdict)
	if len(vs) != 5 || vs[4].By != "model" || !vs[4].Passed {
		t.Errorf("verdicts %+v", vs)
	}
	sch := wf.Agents["pains"].Schema
	v := checkSchema(sch, map[string]any{"pains": []any{map[string]any{"x": 1}}})
	if v.Passed || !strings.Contains(v.Reason, "at /pains/0") || !strings.Contains(v.Reason, "required") {
		t.Errorf("schema verdict %+v", v)
	}
	if _, _, err := validate(nil, "json", "not json", nil); err == nil {
		t.Error("non-JSON passed format json")
	}
	if _, _, err := validate(nil, "", "  ", nil); err == nil {
		t.Error("empty output passed")
	}
}

func TestGlobalTimeoutReportsPartialResults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wf := mustParse(t, `workflow: {name: t, timeout: 1m}
agents:
  a: {prompt: "a"}
  b: {prompt: "b"}
steps:
  - {id: one, agent: a}
  - {id: two, agent: b, input: "{{steps.one.output}}"}
`)
		h := newFake()
		h.say("a", "first")
		h.agents["b"] = func(ctx context.Context, _ string, _ int) loop.Outcome {
			<-ctx.Done()
			return loop.Outcome{Status: trace.StatusTimeout, Error: "deadline"}
		}
		res := Execute(context.Background(), h, wf, Options{Sleep: noSleep})
		if res.Status != StatusTimeout || res.Outputs["one"] != "first" || res.Steps[1].Status != StepTimeout {
			t.Fatalf("%s %v %s", res.Status, res.Outputs, res.Steps[1].Status)
		}
	})
}

func TestParallelWaitNFallbackFailsAndMapElementFailure(t *testing.T) {
	h := newFake()
	h.say("a", "1")
	h.say("b", "2")
	h.agents["c"] = func(ctx context.Context, _ string, _ int) loop.Outcome {
		<-ctx.Done()
		return loop.Outcome{Status: trace.StatusCancelled}
	}
	res := Execute(context.Background(), h, mustParse(t, `workflow: {name: n}
agents: {a: {prompt: a}, b: {prompt: b}, c: {prompt: c}}
steps:
  - id: fan
    parallel: [{agent: a}, {agent: b}, {agent: c}]
    wait: 2
`), Options{Sleep: noSleep})
	if res.Status != StatusOK || len(res.Outputs["fan"].(map[string]any)) != 2 {
		t.Fatalf("wait 2: %s %v", res.Status, res.Outputs)
	}

	h = newFake()
	h.agents["x"] = func(context.Context, string, int) loop.Outcome {
		return loop.Outcome{Status: trace.StatusError, Error: "bad"}
	}
	h.agents["y"] = h.agents["x"]
	res = Execute(context.Background(), h, mustParse(t, `workflow: {name: f}
agents:
  x: {prompt: x, on_failure: "fallback:y"}
  y: {prompt: y, on_failure: skip}
steps:
  - {id: one, agent: x}
`), Options{Sleep: noSleep})
	if res.Status != StatusError || !strings.Contains(res.Steps[0].Error, "fallback y failed too") {
		t.Fatalf("fallback failing: %s %q", res.Status, res.Steps[0].Error)
	}

	h = newFake()
	h.agents["each"] = func(_ context.Context, task string, _ int) loop.Outcome {
		if strings.HasSuffix(task, "\n3") {
			return loop.Outcome{Status: trace.StatusError, Error: "element broke"}
		}
		return loop.Outcome{Status: trace.StatusOK, Result: "ok"}
	}
	res = Execute(context.Background(), h, mustParse(t, `workflow: {name: m}
agents: {each: {prompt: e}}
inputs: [{name: xs, type: json}]
steps:
  - {id: fan, type: map, map: {over: "{{inputs.xs}}", agent: each, concurrency: 1}}
`), Options{Inputs: map[string]any{"xs": []any{1, 2, 3, 4, 5}}, Sleep: noSleep})
	if res.Status != StatusError || !strings.Contains(res.Steps[0].Error, "element 3") || h.calls["each"] != 3 {
		t.Fatalf("map failure: %s %q calls %v", res.Status, res.Steps[0].Error, h.calls)
	}
}

func TestStepTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newFake()
		h.agents["slow"] = func(ctx context.Context, _ string, _ int) loop.Outcome {
			<-ctx.Done()
			return loop.Outcome{Status: trace.StatusTimeout, Error: "deadline"}
		}
		res := Execute(context.Background(), h, mustParse(t, `workflow: {name: t}
agents: {slow: {prompt: s, on_failure: skip}}
steps:
  - {id: one, agent: slow, timeout: 30s}
`), Options{Sleep: noSleep})
		if res.Status != StatusPartial || res.Steps[0].Status != StepSkipped {
			t.Fatalf("%s %s", res.Status, res.Steps[0].Status)
		}
	})
}

func TestStepTimeoutAborts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newFake()
		h.agents["slow"] = func(ctx context.Context, _ string, _ int) loop.Outcome {
			<-ctx.Done()
			return loop.Outcome{Status: trace.StatusTimeout, Error: "deadline"}
		}
		h.say("next", "n")
		res := Execute(context.Background(), h, mustParse(t, `workflow: {name: t}
agents: {slow: {prompt: s}, next: {prompt: "n {{steps.one.output}}"}}
steps:
  - {id: one, agent: slow, timeout: 30s}
  - {id: two, agent: next}
`), Options{Sleep: noSleep})
		if res.Status != StatusError || res.Steps[0].Status != StepTimeout || res.Steps[1].Status != StepCancelled || h.calls["next"] != 0 {
			t.Fatalf("%s %s %s", res.Status, res.Steps[0].Status, res.Steps[1].Status)
		}
	})
}

func TestParallelSkippedBranchMakesThePartial(t *testing.T) {
	h := newFake()
	h.say("a", "1")
	h.agents["b"] = func(context.Context, string, int) loop.Outcome {
		return loop.Outcome{Status: trace.StatusError, Error: "down"}
	}
	res := Execute(context.Background(), h, mustParse(t, `workflow: {name: n}
agents: {a: {prompt: a}, b: {prompt: b, on_failure: skip}}
steps:
  - id: fan
    parallel: [{agent: a}, {agent: b}]
`), Options{Sleep: noSleep})
	out := res.Outputs["fan"].(map[string]any)
	if res.Status != StatusPartial || res.Steps[0].Status != StepOK || out["a"] != "1" || out["b"] != nil {
		t.Fatalf("%s %s %v", res.Status, res.Steps[0].Status, out)
	}
	if _, has := out["b"]; !has {
		t.Error("the skipped branch's key is missing; want null")
	}
}

// Backoff waits as seed 000's retry logic: before attempt n, linear waits
// n×5 s and exponential 2^n s (RetryBase is the second); constant, which
// the seed lacks, waits 5 s each time.
func TestRetryBackoffWaitsAsTheSeedSays(t *testing.T) {
	for _, c := range []struct {
		backoff string
		want    []time.Duration
	}{
		{"linear", []time.Duration{10 * time.Second, 15 * time.Second, 20 * time.Second}},
		{"exponential", []time.Duration{4 * time.Second, 8 * time.Second, 16 * time.Second}},
		{"constant", []time.Duration{5 * time.Second, 5 * time.Second, 5 * time.Second}},
		{"none", []time.Duration{0, 0, 0}},
	} {
		h := newFake()
		h.agents["flaky"] = func(context.Context, string, int) loop.Outcome {
			return loop.Outcome{Status: trace.StatusError, Error: "boom"}
		}
		var waits []time.Duration
		sleep := func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
		Execute(context.Background(), h, mustParse(t, `workflow: {name: r}
agents:
  flaky: {prompt: f, retry: {max_attempts: 4, backoff: `+c.backoff+`}}
steps:
  - {id: one, agent: flaky}
`), Options{Sleep: sleep})
		if !slices.Equal(waits, c.want) {
			t.Errorf("%s: waits %v, want %v", c.backoff, waits, c.want)
		}
	}
}

// A sequential step skipped by on_failure: skip has a null output under
// its name, as a skipped parallel branch has (seed 000: "store null
// output, continue workflow").
func TestASkippedSequentialStepsOutputIsNull(t *testing.T) {
	h := newFake()
	h.agents["flaky"] = func(context.Context, string, int) loop.Outcome {
		return loop.Outcome{Status: trace.StatusError, Error: "down"}
	}
	h.say("after", "fine")
	res := Execute(context.Background(), h, mustParse(t, `workflow: {name: s}
agents:
  flaky: {prompt: f, on_failure: skip}
  after: {prompt: a}
steps:
  - {id: one, agent: flaky, output: {store_as: research}}
  - {id: two, agent: after}
`), Options{Sleep: noSleep})
	out, has := res.Outputs["research"]
	if res.Status != StatusPartial || !has || out != nil {
		t.Fatalf("status %s outputs %v: want partial with research null", res.Status, res.Outputs)
	}
}

// The report counts a step cancelled after an abort apart from the step
// that failed.
func TestTheReportCountsCancelledStepsApartFromFailedOnes(t *testing.T) {
	h := newFake()
	h.agents["bad"] = func(context.Context, string, int) loop.Outcome {
		return loop.Outcome{Status: trace.StatusError, Error: "broken"}
	}
	h.say("later", "never")
	wf := mustParse(t, `workflow: {name: c}
agents: {bad: {prompt: b}, later: {prompt: "l {{steps.one.output}}"}}
steps:
  - {id: one, agent: bad}
  - {id: two, agent: later}
  - {id: three, agent: later, input: "{{steps.two.output}}"}
`)
	rep := Report(wf, Execute(context.Background(), h, wf, Options{Sleep: noSleep}))
	for _, want := range []string{"- Steps failed: 1\n", "- Steps cancelled: 2\n"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
}
