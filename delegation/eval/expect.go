package eval

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/trace"
)

// Outcome is what a case's run did, as the expectations read it.
type Outcome struct {
	Run   trace.Run
	Spans []trace.Span
	// Output is the final answer (a workflow's final output, as JSON
	// unless it is a string); Value the same as a JSON value, nil when the
	// output is not JSON.
	Output string
	Value  any
	// Status is the run's status (a workflow's ok, partial, error, ...).
	Status string
}

// check applies every expectation but the rubric, which needs a model
// (judge.go), in a fixed order.
func (x Expect) check(o Outcome) []trace.EvalCheck {
	var out []trace.EvalCheck
	add := func(kind string, passed bool, format string, a ...any) {
		out = append(out, trace.EvalCheck{Kind: kind, Passed: passed, Detail: fmt.Sprintf(format, a...)})
	}
	want := x.Status
	if want == "" {
		want = string(trace.StatusOK)
	}
	add("status", o.Status == want, "expected the run to end %s, it ended %s%s", want, o.Status, errorSuffix(o.Run.Error))
	for _, s := range x.OutputContains {
		if strings.Contains(o.Output, s) {
			add("output_contains", true, "found %q", s)
		} else {
			add("output_contains", false, "%q not found in the output %s", s, quote(o.Output))
		}
	}
	if x.OutputRegex != nil {
		ok := x.OutputRegex.MatchString(o.Output)
		add("output_regex", ok, "%s %s the output %s", x.OutputRegex, map[bool]string{true: "matches", false: "does not match"}[ok], quote(o.Output))
	}
	if x.OutputSchema != nil {
		switch {
		case o.Value == nil && strings.TrimSpace(o.Output) != "null":
			add("output_schema", false, "the output is not JSON: %s", quote(o.Output))
		default:
			if why := workflow.SchemaViolation(x.OutputSchema, o.Value); why != "" {
				add("output_schema", false, "the output does not validate: %s", why)
			} else {
				add("output_schema", true, "the output validates")
			}
		}
	}
	if x.Trajectory != nil {
		out = append(out, x.Trajectory.check(o.Spans))
	}
	if x.MaxTokens > 0 {
		n := o.Run.InputTokens + o.Run.OutputTokens
		add("max_tokens", n <= x.MaxTokens, "%d tokens used, at most %d allowed", n, x.MaxTokens)
	}
	if x.MaxCost > 0 {
		add("max_cost", o.Run.CostUSD <= x.MaxCost, "$%.4f spent, at most $%.4f allowed", o.Run.CostUSD, x.MaxCost)
	}
	if x.MaxTime > 0 {
		d := o.Run.EndedAt.Sub(o.Run.StartedAt)
		add("max_time", d <= x.MaxTime, "took %s, at most %s allowed", d.Round(1e6), x.MaxTime)
	}
	if x.NoDenied {
		var denied []string
		for _, sp := range o.Spans {
			if sp.Status == trace.StatusDenied {
				denied = append(denied, strings.TrimPrefix(sp.Name, "execute_tool "))
			}
		}
		add("no_denied", len(denied) == 0, "%d denied calls%s", len(denied), listSuffix(denied))
	}
	return out
}

// outputOf is a workflow's final output as the checks read it: a string
// as it is, anything else as JSON.
func outputOf(final any) (string, any) {
	if s, ok := final.(string); ok {
		return s, parseJSON(s)
	}
	b, err := json.Marshal(final)
	if err != nil {
		return fmt.Sprint(final), nil
	}
	return string(b), final
}

// parseJSON is s as a JSON value, nil when it is not JSON.
func parseJSON(s string) any {
	var v any
	if err := json.Unmarshal([]byte(strings.TrimSpace(s)), &v); err != nil {
		return nil
	}
	return v
}

func quote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 160 {
		s = string(r[:160]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

func errorSuffix(err string) string {
	if err == "" {
		return ""
	}
	return ": " + firstLine(err)
}

func listSuffix(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return ": " + strings.Join(names, ", ")
}
