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

// progress is the work an invocation did before a limit stopped it (the
// document's "Continue?" pattern): its last text, and the results of the
// tool calls it made, most recent last, so the parent can decide what is
// left to do.
func (inv *invocation) progress(last string) string { return Progress(inv.conv, last) }

// Progress is the partial-progress text of an invocation with conversation
// conv and last text last, for an engine that plays the loop itself.
func Progress(conv []model.Message, last string) string {
	var b strings.Builder
	b.WriteString("Stopped by a limit before a final answer. Work so far:")
	if strings.TrimSpace(last) != "" {
		fmt.Fprintf(&b, "\n%s", strings.TrimSpace(last))
	}
	names := map[string]string{}
	n := 0
	for _, m := range conv {
		for _, c := range m.ToolCalls {
			names[c.ID] = c.Name
		}
		if m.Role != model.RoleTool {
			continue
		}
		n++
		out := m.Content
		if len(out) > progressResultChars {
			out = out[:progressResultChars] + "…"
		}
		fmt.Fprintf(&b, "\n- %s → %s", names[m.ToolCallID], out)
	}
	if n == 0 && strings.TrimSpace(last) == "" {
		b.WriteString("\n(nothing finished)")
	}
	return b.String()
}
