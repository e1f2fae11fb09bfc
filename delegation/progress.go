package delegation

import (
	"fmt"
	"strings"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
)

// answered is the outcome of a turn without tool calls: its text, or the
// error ErrEmptyAnswer when there is none to speak of.
func answered(text string) outcome {
	if strings.TrimSpace(text) == "" {
		return outcome{status: trace.StatusError, err: ErrEmptyAnswer.Error()}
	}
	return outcome{status: trace.StatusOK, result: text}
}

// progressResultChars caps each tool result quoted in a partial-progress
// report, so a limit does not hand the parent a huge result.
const progressResultChars = 400

// notRunPrefix starts the result of a tool call a limit kept from running.
const notRunPrefix = "not run: "

// progress is the work an invocation did before the limit why stopped it,
// with the background agents whose results its model had not had.
func (inv *invocation) progress(last, why string) string {
	return Progress(inv.conv, last, why, inv.pending())
}

// pending reports the background agents whose results the model has not
// had, as they stand (running, or ended unread).
func (inv *invocation) pending() []AgentReport {
	if inv.jobs == nil {
		return nil
	}
	now := inv.rn.rt.cfg.Now()
	inv.jobs.mu.Lock()
	defer inv.jobs.mu.Unlock()
	var out []AgentReport
	for _, j := range inv.jobs.order {
		if !j.collected {
			out = append(out, j.report(now))
		}
	}
	return out
}

// Progress is the partial-progress report of an invocation that the limit
// why stopped (seed 001 §7.4's "Continue?" pattern), in the shape of the
// budget report: why, the agent's last words, what was done (each tool
// result, most recent last, and agents that finished unread), what was not
// (calls the limit kept from running, agents still running or failed), and
// how to raise the limit. conv is its conversation, last its last text and
// agents its background agents whose results it had not had; an engine
// that plays the loop itself calls it too.
func Progress(conv []model.Message, last, why string, agents []AgentReport) string {
	calls := map[string]model.ToolCall{}
	var done, notDone []string
	for _, m := range conv {
		for _, c := range m.ToolCalls {
			calls[c.ID] = c
		}
		if m.Role != model.RoleTool {
			continue
		}
		c := calls[m.ToolCallID]
		if strings.HasPrefix(m.Content, notRunPrefix) {
			notDone = append(notDone, fmt.Sprintf("- %s %s (not run: the limit)", c.Name, oneLine(string(c.Args), 120)))
			continue
		}
		out := m.Content
		if len(out) > progressResultChars {
			out = out[:progressResultChars] + "…"
		}
		done = append(done, fmt.Sprintf("- %s → %s", c.Name, out))
	}
	for _, a := range agents {
		line := fmt.Sprintf("- %s (%s)", a.AgentID, a.Agent)
		switch a.Status {
		case "completed":
			done = append(done, line+" → "+oneLine(a.Result, 200))
		case "running":
			notDone = append(notDone, line+" (running or waiting when the limit stopped it: cancelled)")
		default:
			notDone = append(notDone, fmt.Sprintf("%s (%s: %s)", line, a.Status, oneLine(a.Error, 160)))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Stopped by a limit before a final answer: %s.\n", strings.TrimSuffix(why, "."))
	if t := strings.TrimSpace(last); t != "" {
		fmt.Fprintf(&b, "\nLast words:\n%s\n", t)
	}
	writeSections(&b, done, notDone)
	if _, hint := LimitHint(why); hint != "" {
		fmt.Fprintf(&b, "\nTo go further: %s.\n", hint)
	}
	return b.String()
}

// writeSections writes the Done and Not done sections that every limit's
// report has (Progress, BudgetReport).
func writeSections(b *strings.Builder, done, notDone []string) {
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
