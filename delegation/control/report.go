package control

import (
	"fmt"
	"strings"
)

// Every limit ends with one report shape (seed 001 §7.4's "Continue?"
// pattern): why, what was done, what was not, and how to go further. The
// loop writes it for the limits of an invocation, a budget for a run.

// WriteSections writes the Done and Not done sections that every limit's
// report has (the loop's, the budget's).
func WriteSections(b *strings.Builder, done, notDone []string) {
	for _, s := range []struct {
		title string
		lines []string
	}{{"Done", done}, {"Not done", notDone}} {
		fmt.Fprintf(b, "\n%s:\n", s.title)
		if len(s.lines) == 0 {
			b.WriteString("- nothing\n")
		}
		for _, l := range s.lines {
			b.WriteString(l + "\n")
		}
	}
}

// OneLine folds s to one line of at most n runes.
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// limitSettings are the settings a limit's reason names in parentheses,
// with how to raise each.
var limitSettings = []struct{ setting, hint string }{
	{"limits.window_calls", "raise limits.window_calls (or shorten limits.window) in agentry.yaml, or set AGENTRY_LIMITS__WINDOW_CALLS=N; 0 turns the window off"},
	{"limits.turn_tool_calls", "raise limits.turn_tool_calls in agentry.yaml, or set AGENTRY_LIMITS__TURN_TOOL_CALLS=N; 0 turns it off"},
	{"limits.orchestrator_turns", "raise limits.orchestrator_turns in agentry.yaml, or set AGENTRY_LIMITS__ORCHESTRATOR_TURNS=N; 0 leaves only max_turns"},
	{"max_tool_calls", "dispatch the agent with a higher max_tool_calls, or raise limits.dispatch_tool_calls in agentry.yaml"},
	{"max_turns", "raise max_turns in the agent's file"},
}

// LimitHint names the setting behind a limit's reason why and says how to
// raise it ("" and "" when why names none), for the report and `agentry
// run`'s output.
func LimitHint(why string) (setting, hint string) {
	for _, s := range limitSettings {
		if strings.Contains(why, "("+s.setting+")") {
			return s.setting, s.hint
		}
	}
	return "", ""
}
