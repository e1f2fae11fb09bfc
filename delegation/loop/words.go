package loop

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
)

// Why an invocation ends other than with an answer.
var (
	// ErrTurnLimit ends an invocation that used max_turns without an
	// answer; it ends with status limit and the work so far.
	ErrTurnLimit = errors.New("turn limit reached")
	// ErrEmptyAnswer fails an invocation whose final answer is empty or
	// only whitespace: a sub-agent that says nothing has not succeeded.
	ErrEmptyAnswer = errors.New("empty answer")
	// ErrToolCallLimit ends an agent that used its max_tool_calls.
	ErrToolCallLimit = errors.New("tool call limit reached")
	// ErrBudget is why a model call was refused after the run's budget
	// tripped.
	ErrBudget = errors.New("budget spent")
	// ErrDispatcherEnded stops background agents still running when the
	// invocation that started them has ended.
	ErrDispatcherEnded = errors.New("the agent that started it has ended")
)

// answered is the outcome of a turn without tool calls: its text, or the
// error ErrEmptyAnswer when there is none to speak of.
func answered(text string) Outcome {
	if strings.TrimSpace(text) == "" {
		return Outcome{Status: trace.StatusError, Error: ErrEmptyAnswer.Error()}
	}
	return Outcome{Status: trace.StatusOK, Result: text}
}

// turnLimit is why an invocation that made n model calls without a final
// answer stopped: max_turns, or the orchestrator's loop limit.
func turnLimit(n int, loopLimit bool) string {
	if loopLimit {
		return fmt.Sprintf("%v: %d orchestrator model calls without a final answer (limits.orchestrator_turns)", ErrTurnLimit, n)
	}
	return fmt.Sprintf("%v: %d turns without a final answer (max_turns)", ErrTurnLimit, n)
}

// loopLimitWhy is why the calls of model turn turn (from 0) are not run:
// it is an orchestrator's last under limits.orchestrator_turns, so no
// later turn could read their results and the agents it dispatched would
// be stopped as they started (seed 001 refuses them: its "Not yet
// started").
func loopLimitWhy(n int, loopLimit bool, turn int) string {
	if loopLimit && turn == n-1 {
		return turnLimit(n, true)
	}
	return ""
}

// toolCallCap grants up to asked tool calls to an agent that made used of
// its max_tool_calls limit (0 = none), with why the rest may not run.
func toolCallCap(used, asked, limit int) (int, string) {
	if limit <= 0 || used+asked <= limit {
		return asked, ""
	}
	n := max(limit-used, 0)
	return n, fmt.Sprintf("%v: %d calls asked for with %d of max_tool_calls %d left (max_tool_calls)", ErrToolCallLimit, asked, n, limit)
}

// skipDispatch says whether a dispatched agent is skipped for its ended
// dependencies, and with what reason: a failed dependency skips it (a
// skipped one passes its own reason on, so the root cause shows).
func skipDispatch(deps []Dependency) (Outcome, bool) {
	for _, dep := range deps {
		switch {
		case dep.Status == trace.StatusSkipped:
			return Outcome{Status: trace.StatusSkipped, Error: dep.Error}, true
		case dep.Status != trace.StatusOK:
			return Outcome{Status: trace.StatusSkipped, Error: fmt.Sprintf("skipped because dependency %q ended %s: %s", dep.ID, ReportStatus(dep.Status), dep.Error)}, true
		}
	}
	return Outcome{}, false
}

// Report is one entry of get_agent_results, seed 001's §2.3 shape.
type Report struct {
	AgentID       string `json:"agent_id"`
	Agent         string `json:"agent,omitempty"`
	Status        string `json:"status"`
	Result        string `json:"result"`
	ToolCallsUsed int    `json:"tool_calls_used"`
	DurationMS    int64  `json:"duration_ms"`
	Error         string `json:"error,omitempty"`
}

// The words of a Report's Status that are not trace statuses: seed 001's
// names for ok and error, and for an agent still going.
const (
	ReportCompleted = "completed"
	ReportFailed    = "failed"
	ReportRunning   = "running"
)

// ReportStatus names a status as seed 001 does: completed and failed for
// ok and error, running while there is none, the trace status otherwise
// (timeout, limit, skipped...).
func ReportStatus(s trace.Status) string {
	switch s {
	case trace.StatusOK:
		return ReportCompleted
	case trace.StatusError:
		return ReportFailed
	case "":
		return ReportRunning
	}
	return string(s)
}

// unknownAgent is the get_agent_results entry of an id nobody started.
func unknownAgent(id string) Report {
	return Report{AgentID: id, Status: "unknown", Error: fmt.Sprintf("no agent %q was started by this agent", id)}
}

// Reports is a get_agent_results answer: the reports, as the model reads
// them.
func Reports(reps []Report) string {
	if reps == nil {
		reps = []Report{}
	}
	b, _ := json.Marshal(struct {
		Agents []Report `json:"agents"`
	}{reps})
	return string(b)
}

// lateResults is the message that gives the model the results it did not
// ask for before answering, for one more turn.
func lateResults(reps []Report) string {
	b, _ := json.Marshal(map[string]any{"agents": reps})
	return "These agents you started have finished since; take their results into account and give your final answer:\n" + string(b)
}

// landedMessage gives the model the streamed results landed (none: "")
// and names those still running ("id (agent)").
func landedMessage(landed []Report, running []string) string {
	if len(landed) == 0 {
		return ""
	}
	b, _ := json.Marshal(map[string]any{"agents": landed})
	msg := "Delegation results that have landed:\n" + string(b)
	if len(running) > 0 {
		msg += "\nStill running: " + strings.Join(running, ", ") + ". You may start follow-up work now; their results come as they land."
	}
	return msg
}

// progressResultChars caps each tool result quoted in a partial-progress
// report, so a limit does not hand the parent a huge result.
const progressResultChars = 400

// notRunPrefix starts the result of a tool call a limit kept from running.
const notRunPrefix = "not run: "

// progress is the partial-progress report of an invocation that the limit
// why stopped (seed 001 §7.4's "Continue?" pattern), in the shape of the
// budget report: why, the agent's last words, what was done (each tool
// result, most recent last, and agents that finished unread), what was not
// (calls the limit kept from running, agents still running or failed), and
// how to raise the limit.
func progress(conv []model.Message, last, why string, agents []Report) string {
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
			notDone = append(notDone, fmt.Sprintf("- %s %s (not run: the limit)", c.Name, control.OneLine(string(c.Args), 120)))
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
		case ReportCompleted:
			done = append(done, line+" → "+control.OneLine(a.Result, 200))
		case ReportRunning:
			notDone = append(notDone, line+" (running or waiting when the limit stopped it: cancelled)")
		default:
			notDone = append(notDone, fmt.Sprintf("%s (%s: %s)", line, a.Status, control.OneLine(a.Error, 160)))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Stopped by a limit before a final answer: %s.\n", strings.TrimSuffix(why, "."))
	if t := strings.TrimSpace(last); t != "" {
		fmt.Fprintf(&b, "\nLast words:\n%s\n", t)
	}
	control.WriteSections(&b, done, notDone)
	if _, hint := control.LimitHint(why); hint != "" {
		fmt.Fprintf(&b, "\nTo go further: %s.\n", hint)
	}
	return b.String()
}

// mayHaveKey reports whether the JSON text args may hold the object key key
// (ASCII, lower case), as encoding/json matches keys: unescaped, and
// folding case, so K also matches the Kelvin sign. It answers false only when
// args is plain ASCII without a backslash and without key in any case, which
// spares decoding every delegate call for a key that is rarely there.
func mayHaveKey(args []byte, key string) bool {
	for _, c := range args {
		if c >= utf8.RuneSelf || c == '\\' {
			return true
		}
	}
	for i := 0; i+len(key) <= len(args); i++ {
		j := 0
		for ; j < len(key); j++ {
			c := args[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != key[j] {
				break
			}
		}
		if j == len(key) {
			return true
		}
	}
	return false
}
