package eval

import (
	"fmt"
	"strings"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// Called is what a run called, in the order it started: the sub-agents it
// invoked (every invocation but the root's) and the tools (the runtime's
// own, such as delegate, left out).
func Called(spans []trace.Span) (agents, tools []string) {
	for _, sp := range spans {
		switch {
		case sp.Kind == trace.KindInvokeAgent && sp.ParentID != "":
			agents = append(agents, sp.Agent)
		case sp.Kind == trace.KindExecuteTool:
			name, _ := sp.Attributes[semconv.AttrToolName].(string)
			if name != "" && !delegation.RuntimeTool(name) {
				tools = append(tools, name)
			}
		}
	}
	return agents, tools
}

// Score is how well actual matches expected under order, from 0 to 1
// (the package doc says how each order counts).
func Score(order string, expected, actual []string) float64 {
	if len(expected) == 0 {
		if len(actual) == 0 || order != OrderExact {
			return 1
		}
		return 0
	}
	switch order {
	case OrderAny:
		left := map[string]int{}
		for _, a := range actual {
			left[a]++
		}
		found := 0
		for _, e := range expected {
			if left[e] > 0 {
				left[e]--
				found++
			}
		}
		return float64(found) / float64(len(expected))
	case OrderInOrder:
		return float64(lcs(expected, actual)) / float64(len(expected))
	default:
		return float64(lcs(expected, actual)) / float64(max(len(expected), len(actual)))
	}
}

// lcs is the length of the longest common subsequence of a and b.
func lcs(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(cur[j], prev[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// checkTrajectory scores the agents and the tools named (each that is
// named), and passes when every score reaches MinScore.
func (t *Trajectory) check(spans []trace.Span) trace.EvalCheck {
	agents, tools := Called(spans)
	score, passed := 1.0, true
	var parts []string
	for _, part := range []struct {
		what             string
		expected, actual []string
	}{{"agents", t.Agents, agents}, {"tools", t.Tools, tools}} {
		if part.expected == nil {
			continue
		}
		s := Score(t.Order, part.expected, part.actual)
		score = min(score, s)
		if s < t.MinScore {
			passed = false
		}
		parts = append(parts, fmt.Sprintf("%s %s: expected [%s], got [%s], score %.2f",
			part.what, t.Order, strings.Join(part.expected, " "), strings.Join(part.actual, " "), s))
	}
	detail := strings.Join(parts, "; ")
	if !passed {
		detail += fmt.Sprintf(" (below %.2f)", t.MinScore)
	}
	return trace.EvalCheck{Kind: "trajectory", Passed: passed, Detail: detail, Score: &score}
}
