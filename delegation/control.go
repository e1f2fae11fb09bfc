package delegation

import (
	"fmt"

	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/registry"
)

// Attributes of a delegation's execute_tool span about its batch's mode.
const (
	// attrExecution is the execution mode the call's batch ran in.
	attrExecution = "execution"
	// attrExecutionRequested is the mode the parent asked for when its file
	// did not allow it (the batch ran in attrExecution instead).
	attrExecutionRequested = "execution_requested"
)

// execAttrs puts a batch's mode on a delegation span's attributes.
func execAttrs(e loop.Exec, a map[string]any) {
	if e.Mode == "" {
		return
	}
	a[attrExecution] = word(e.Mode)
	if e.Asked != "" {
		a[attrExecutionRequested] = e.Asked
	}
}

// contextArg reads delegate's context argument: a mode (full_history is
// full) stays a mode; any other text is context for the child, which then
// gets the parent's default mode.
func contextArg(arg, def string) (mode, note string) {
	switch arg {
	case registry.ContextTaskOnly, registry.ContextSummary, registry.ContextFull:
		return arg, ""
	case registry.ContextFullHistory:
		return registry.ContextFull, ""
	}
	mode = def
	if mode == "" {
		mode = registry.ContextTaskOnly
	}
	return mode, arg
}

// withNote puts the parent's free-text context before the child's task, and
// in what the trace says the child received.
func withNote(c *child, d *delegation) {
	if d.note == "" {
		return
	}
	base := c.message
	if base == "" {
		base = "Your task:\n" + d.task
	}
	c.message = fmt.Sprintf("Context from %s:\n%s\n\n%s", c.parent.agent.Name, d.note, base)
	if m, ok := c.passed.(map[string]any); ok {
		m["context"] = d.note
		return
	}
	c.passed = c.message
}
