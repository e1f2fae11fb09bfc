package delegation

import (
	"fmt"

	"github.com/agentry/agentry/registry"
)

// Attributes of a delegation's execute_tool span about its batch's mode.
const (
	// AttrExecution is the execution mode the call's batch ran in.
	AttrExecution = "execution"
	// AttrExecutionRequested is the mode the parent asked for when its file
	// did not allow it (the batch ran in AttrExecution instead).
	AttrExecutionRequested = "execution_requested"
)

// execRank orders the execution modes from least to most concurrent: a
// parent may ask for a mode up to its file's.
var execRank = map[string]int{registry.Sequential: 0, registry.Parallel: 1, registry.ParallelStreaming: 2}

// execChoice is the execution mode of a batch and, when the parent asked
// for more than its file allows, what it asked for.
type execChoice struct{ mode, asked string }

func (e execChoice) attrs(a map[string]any) {
	if e.mode == "" {
		return
	}
	a[AttrExecution] = word(e.mode)
	if e.asked != "" {
		a[AttrExecutionRequested] = e.asked
	}
}

// batchMode picks the batch's mode: the file's (parallel when silent), or
// the least concurrent mode the calls ask for when that is within the
// file's. An unknown mode is an argument error of its call.
func (inv *invocation) batchMode(ds []*delegation) execChoice {
	file := inv.agent.Subagents.Execution
	if _, ok := execRank[file]; !ok {
		file = registry.Parallel
	}
	asked := ""
	for _, d := range ds {
		m := d.args.Execution
		if m == "" || d.argErr != nil {
			continue
		}
		if _, ok := execRank[m]; !ok {
			d.argErr = fmt.Errorf("unknown execution mode %q (sequential, parallel or parallel_streaming)", m)
			continue
		}
		if asked == "" || execRank[m] < execRank[asked] {
			asked = m
		}
	}
	e := execChoice{mode: file}
	switch {
	case asked == "":
	case execRank[asked] <= execRank[file]:
		e.mode = asked
	default:
		e.asked = asked
	}
	for _, d := range ds {
		d.exec = e
	}
	return e
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
