package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/expr-lang/expr"
)

// parallel runs every branch at once. With wait any or N, the rest are
// cancelled once enough have succeeded, and marked cancelled.
func (st *stepRun) parallel(ctx context.Context) {
	s := st.s
	need := branchesNeeded(s)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	results, ok := st.runBranches(ctx, cancel, need)
	outputs, failed, skipped := st.joinBranches(results, ok >= need)
	st.setAttr("wait", s.Wait)
	st.r.Output = outputs
	switch {
	case ok >= need && (failed == "" || need < len(s.Parallel)):
		st.r.Status = StepOK
	case ok+skipped >= need && failed == "":
		// Branches skipped by their policy count as done with null output;
		// the run is partial.
		st.r.Status, st.r.partial = StepOK, true
	case ctx.Err() != nil && context.Cause(ctx) != nil && ok < need:
		st.r.Status, st.r.Error = ctxStatusOr(ctx), failed
	default:
		st.r.Status, st.r.Error = StepError, fmt.Sprintf("wait %s not met: %d of %d succeeded; %s", s.Wait, ok, len(s.Parallel), failed)
	}
	if st.r.Status != StepError {
		st.e.store(s, outputs, outputs)
	}
}

// branchesNeeded is how many of a parallel step's branches must succeed:
// all, one for wait any, or N.
func branchesNeeded(s *Step) int {
	switch {
	case s.Wait == "any":
		return 1
	case s.WaitN > 0:
		return s.WaitN
	}
	return len(s.Parallel)
}

// runBranches calls every branch's agent at once and returns their results
// in the branches' order and how many succeeded. Once need have succeeded,
// it cancels the others (cancel), whose error then says so.
func (st *stepRun) runBranches(ctx context.Context, cancel context.CancelCauseFunc, need int) ([]callResult, int) {
	s := st.s
	results := make([]callResult, len(s.Parallel))
	var mu sync.Mutex
	ok := 0
	var wg sync.WaitGroup
	for i, b := range s.Parallel {
		input := ""
		if b.Input != nil {
			input = st.e.render(b.Input, s)
		}
		wg.Go(func() {
			c := st.call(ctx, b.Agent, input, "")
			mu.Lock()
			defer mu.Unlock()
			if c.status == StepCancelled && ok >= need {
				c.err = fmt.Sprintf("cancelled: wait %s was met", s.Wait)
			}
			results[i] = c
			if c.status == StepOK || c.status == StepFallback {
				ok++
				if ok == need && need < len(s.Parallel) {
					cancel(fmt.Errorf("wait %s met", s.Wait))
				}
			}
		})
	}
	wg.Wait()
	return results, ok
}

// joinBranches records each branch on the step span (attribute branches)
// and returns the step's outputs by output_key (null for a skipped branch),
// the first failure, and how many branches were skipped. A branch
// cancelled after the wait was met (met) is a note, not a failure.
func (st *stepRun) joinBranches(results []callResult, met bool) (outputs map[string]any, failed string, skipped int) {
	s := st.s
	outputs = map[string]any{}
	branches := make([]map[string]any, len(s.Parallel))
	for i, b := range s.Parallel {
		c := results[i]
		branches[i] = map[string]any{"agent": b.Agent, "output_key": b.OutputKey, "status": c.status}
		if c.err != "" {
			branches[i]["error"] = c.err
		}
		switch c.status {
		case StepOK, StepFallback:
			outputs[b.OutputKey] = c.value
		case StepSkipped:
			outputs[b.OutputKey] = nil
			skipped++
		case StepCancelled:
			if met {
				st.note("%s cancelled: wait %s was met", b.Agent, s.Wait)
				break
			}
			fallthrough
		default:
			if failed == "" {
				failed = fmt.Sprintf("%s: %s", b.Agent, c.err)
			}
		}
		if len(c.verdicts) > 0 {
			branches[i]["validation"] = c.verdicts
		}
	}
	st.setAttr("branches", branches)
	return outputs, failed, skipped
}

// conditional evaluates the expression; one that errors or gives no
// boolean takes the false branch with a warning.
func (st *stepRun) conditional(ctx context.Context) {
	c := st.s.Condition
	st.e.mu.RLock()
	v, err := expr.Run(c.program, st.e.env)
	st.e.mu.RUnlock()
	val, isBool := v.(bool)
	cond := map[string]any{"expression": c.Eval, "value": v}
	switch {
	case err != nil:
		cond["error"] = firstLine(err.Error())
		st.e.warn("step %s: condition %q failed (%s); took the false branch", st.s.ID, c.Eval, firstLine(err.Error()))
	case !isBool:
		cond["error"] = fmt.Sprintf("not a boolean: %v", v)
		st.e.warn("step %s: condition %q gave %v, not true or false; took the false branch", st.s.ID, c.Eval, v)
	}
	target := c.False
	if val && isBool && err == nil {
		target = c.True
	}
	cond["branch"] = target
	st.setAttr("condition", cond)
	st.e.routes[st.s.index] = target
	decision := map[string]any{"condition": val, "route": target}
	if target == "" || st.e.isStep(target) {
		st.r.Status, st.r.Output = StepOK, decision
		st.e.store(st.s, decision, nil)
		return
	}
	st.callAndStore(ctx, target, st.input(), "")
}

func (e *engine) isStep(id string) bool {
	for _, s := range e.wf.Steps {
		if s.ID == id {
			return true
		}
	}
	return false
}

// loop runs the producer, then the validator, until the validator passes
// or max_iterations producer runs; the last output is kept and flagged.
func (st *stepRun) loop(ctx context.Context) {
	lp := st.s.Loop
	input := st.input()
	var out callResult
	feedback := ""
	iterations := make([]map[string]any, 0, lp.MaxIterations)
	for it := 1; it <= lp.MaxIterations; it++ {
		extra := ""
		if it > 1 {
			extra = "Feedback from the validator on your previous output:\n" + feedback + "\n\nYour previous output:\n" + out.text
		}
		out = st.call(ctx, lp.Agent, input, extra)
		iter := map[string]any{"iteration": it, "producer": out.status}
		iterations = append(iterations, iter)
		st.setAttr("iteration", it)
		if out.status != StepOK && out.status != StepFallback {
			st.finish(out)
			st.setAttr("iterations", iterations)
			return
		}
		verdict := st.call(ctx, lp.Validator, "", "Output to validate:\n"+out.text)
		iter["validator"] = verdict.status
		if verdict.status != StepOK && verdict.status != StepFallback {
			st.finish(verdict)
			st.r.Error = "validator " + lp.Validator + ": " + verdict.err
			st.setAttr("iterations", iterations)
			return
		}
		passed, fb := st.verdict(verdict)
		iter["passed"], iter["feedback"] = passed, fb
		st.span.Event("iteration", map[string]any{"iteration": it, "passed": passed, "feedback": fb})
		feedback = fb
		if passed {
			st.r.Status, st.r.Output = StepOK, out.value
			st.setAttr("iterations", iterations)
			st.e.store(st.s, out.value, nil)
			return
		}
	}
	st.r.Status, st.r.Output = StepMaxIterations, out.value
	st.note("max iterations reached (%d); kept the last output", lp.MaxIterations)
	st.setAttr("iterations", iterations)
	st.e.store(st.s, out.value, nil)
}

// verdict reads a validator's output: `passed` and the feedback, from
// feedback_path (where steps.SELF.output is the validator's output) or the
// `feedback` field.
func (st *stepRun) verdict(v callResult) (bool, string) {
	obj, _ := v.value.(map[string]any)
	passed, _ := obj["passed"].(bool)
	if obj == nil {
		return false, v.text
	}
	fb := Text(obj["feedback"])
	if t := st.s.Loop.FeedbackPath; t != nil {
		st.e.mu.RLock()
		env := make(map[string]any, len(st.e.env))
		for k, x := range st.e.env {
			env[k] = x
		}
		steps := make(map[string]any, len(st.e.steps)+1)
		for k, x := range st.e.steps {
			steps[k] = x
		}
		st.e.mu.RUnlock()
		steps[st.s.ID] = map[string]any{"output": obj}
		env["steps"] = steps
		if s, warns := t.Render(env); len(warns) == 0 {
			fb = s
		}
	}
	return passed, fb
}

// mapReduce runs the agent once per element of a JSON array, at most
// Concurrency at a time, then the reducer over the results in order.
func (st *stepRun) mapReduce(ctx context.Context) {
	m := st.s.Map
	elems, err := st.elements()
	if err != nil {
		st.r.Status, st.r.Error = StepError, err.Error()
		return
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	results, failed := st.mapElements(ctx, cancel, elems)
	if failed != "" {
		st.r.Status, st.r.Error = StepError, failed
		return
	}
	if context.Cause(ctx) != nil && ctx.Err() != nil {
		st.r.Status, st.r.Error = ctxStatus(ctx), context.Cause(ctx).Error()
		return
	}
	if m.Reduce == "" {
		st.r.Status, st.r.Output = StepOK, results
		st.e.store(st.s, results, nil)
		return
	}
	st.callAndStore(ctx, m.Reduce, "", "Results to combine:\n"+Text(results))
}

// elements are the values map.over gives: a JSON array, or a string that
// holds one (fenced or not).
func (st *stepRun) elements() ([]any, error) {
	st.e.mu.RLock()
	over, err := st.s.Map.Over.Value(st.e.env)
	st.e.mu.RUnlock()
	if s, ok := over.(string); ok && err == nil {
		if jerr := json.Unmarshal([]byte(strings.TrimSpace(Unfence(s))), &over); jerr != nil {
			err = fmt.Errorf("map.over is not a JSON array: %v", jerr)
		}
	}
	elems, isArr := over.([]any)
	if err == nil && !isArr {
		err = fmt.Errorf("map.over gave %T, not a JSON array", over)
	}
	if err != nil {
		return nil, err
	}
	return elems, nil
}

// mapElements calls the map agent on each element, at most Concurrency at
// a time, and records their statuses on the step span. The first element
// that fails cancels the rest (cancel), which are marked cancelled; failed
// says which failed and why.
func (st *stepRun) mapElements(ctx context.Context, cancel context.CancelCauseFunc, elems []any) (results []any, failed string) {
	m := st.s.Map
	results = make([]any, len(elems))
	statuses := make([]string, len(elems))
	sem := make(chan struct{}, m.Concurrency)
	var wg sync.WaitGroup
	var fmu sync.Mutex
	for i, el := range elems {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			statuses[i] = StepCancelled
			continue
		}
		wg.Go(func() {
			defer func() { <-sem }()
			c := st.call(ctx, m.Agent, "", fmt.Sprintf("Element %d of %d:\n%s", i+1, len(elems), Text(el)))
			results[i], statuses[i] = c.value, c.status
			if c.status == StepError || c.status == StepTimeout {
				fmu.Lock()
				if failed == "" {
					failed = fmt.Sprintf("element %d: %s", i+1, c.err)
				}
				fmu.Unlock()
				cancel(fmt.Errorf("element %d failed", i+1))
			}
		})
	}
	wg.Wait()
	st.setAttr("elements", len(elems))
	st.setAttr("element", statuses)
	return results, failed
}
