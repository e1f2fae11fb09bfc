package agents

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentry/agentry/registry"
)

// change is one frontmatter key the form may write.
type change struct {
	key     string
	differs bool
	value   any // nil deletes the key
}

// apply writes into d each field where f differs from was, the form as the
// file filled it. Fields the user did not touch are not written at all, so a
// form saved without changes leaves the file byte-identical, whatever
// spelling (Claude Code, VS Code) the file used.
func (f AgentForm) apply(d *registry.Document, was AgentForm) error {
	for _, c := range f.changes(was) {
		if !c.differs {
			continue
		}
		if err := d.Set(c.key, c.value); err != nil {
			return fmt.Errorf("set %s: %w", c.key, err)
		}
	}
	if normalizeNewlines(f.Body) != normalizeNewlines(was.Body) {
		d.SetBody(f.Body)
	}
	return nil
}

func (f AgentForm) changes(was AgentForm) []change {
	return []change{
		{"name", f.Name != was.Name, f.Name},
		{"description", f.Description != was.Description, f.Description},
		{"model", f.Model != was.Model, textOrNil(f.Model)},
		{"tools.allow", allowDiffers(f.ToolsAny, f.ToolsAllow, was.ToolsAny, was.ToolsAllow), allowValue(f.ToolsAny, f.ToolsAllow)},
		{"tools.deny", !sameList(f.ToolsDeny, was.ToolsDeny), listOrNil(f.ToolsDeny)},
		{"subagents.allow", !sameList(f.AgentsAllow, was.AgentsAllow), listOrNil(f.AgentsAllow)},
		{"subagents.deny", !sameList(f.AgentsDeny, was.AgentsDeny), listOrNil(f.AgentsDeny)},
		{"subagents.execution", f.Execution != was.Execution, textOrNil(f.Execution)},
		{"subagents.max_concurrent", f.MaxConcurrent != was.MaxConcurrent, intOrNil(f.MaxConcurrent)},
		{"subagents.context", f.Context != was.Context, textOrNil(f.Context)},
		{"subagents.nested", f.Nested != was.Nested, f.Nested},
		{"max_turns", f.MaxTurns != was.MaxTurns, intOrNil(f.MaxTurns)},
		{"timeout", f.Timeout != was.Timeout, textOrNil(f.Timeout)},
		{"retry.max_attempts", f.RetryAttempts != was.RetryAttempts, intOrNil(f.RetryAttempts)},
		{"retry.backoff", f.RetryBackoff != was.RetryBackoff, textOrNil(f.RetryBackoff)},
		{"enabled", f.Enabled != was.Enabled, f.Enabled},
	}
}

// allowDiffers compares two allow lists where "any" (absent) differs from an
// empty list, which allows nothing.
func allowDiffers(open bool, list []string, wasOpen bool, was []string) bool {
	if open || wasOpen {
		return open != wasOpen
	}
	return !sameList(list, was)
}

func allowValue(open bool, list []string) any {
	if open {
		return nil
	}
	return append([]string{}, list...)
}

func sameList(a, b []string) bool { return slices.Equal(a, b) || len(a) == 0 && len(b) == 0 }

func listOrNil(l []string) any {
	if len(l) == 0 {
		return nil
	}
	return l
}

func textOrNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// intOrNil turns a checked number field into a value; "" deletes the key.
func intOrNil(s string) any {
	if s == "" {
		return nil
	}
	n, _ := strconv.Atoi(s)
	return n
}

func normalizeNewlines(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }
