// Package todo is the built-in todo.write tool (Claude Code's TodoWrite,
// VS Code's todos): the agent's checklist. Each call writes the whole list;
// the list is recorded on the call's execute_tool span under the attribute
// Attribute, so the timeline shows how the agent's plan evolved.
package todo

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
)

// Name is the tool's name.
const Name = "todo.write"

// Attribute is the execute_tool span attribute that holds the checklist
// written by the call, a []Item (JSON: [{content, status, activeForm?}]).
const Attribute = "todos"

// Statuses of an item.
const (
	Pending    = "pending"
	InProgress = "in_progress"
	Completed  = "completed"
)

// Item is one entry of the checklist, in Claude Code's TodoWrite shape.
type Item struct {
	Content string `json:"content"`
	Status  string `json:"status"`
	// ActiveForm is the present-continuous wording shown while the item is
	// in progress ("Running the tests").
	ActiveForm string `json:"activeForm,omitempty"`
}

// New returns the todo.write tool; it needs nothing, so it is always
// available.
func New() tool.Tool {
	return tool.Typed(model.Tool{
		Name: Name,
		Description: "Write your task checklist (the whole list each time) to plan multi-step work and show progress. " +
			"Keep exactly one item in_progress while working; mark items completed as soon as they are done.",
		Parameters: tool.Schema(map[string]string{"todos": `{"type":"array","items":{"type":"object","properties":{` +
			`"content":{"type":"string","minLength":1,"description":"what to do, imperative (\"Run the tests\")"},` +
			`"status":{"type":"string","enum":["pending","in_progress","completed"]},` +
			`"activeForm":{"type":"string","description":"present continuous form shown while in progress (\"Running the tests\")"}},` +
			`"required":["content","status"],"additionalProperties":false}}`}, "todos"),
	}, write)
}

// writeArgs are todo.write's arguments: todos is required, and may be empty.
type writeArgs struct {
	Todos *[]Item `json:"todos"`
}

func write(ctx context.Context, a writeArgs) (string, error) {
	if a.Todos == nil {
		return "", fmt.Errorf("%w: todos is required (an empty list clears the checklist)", tool.ErrInvalidArgs)
	}
	items := *a.Todos
	counts := map[string]int{}
	for i, it := range items {
		if strings.TrimSpace(it.Content) == "" {
			return "", fmt.Errorf("%w: todos[%d].content is empty", tool.ErrInvalidArgs, i)
		}
		switch it.Status {
		case Pending, InProgress, Completed:
			counts[it.Status]++
		default:
			return "", fmt.Errorf("%w: todos[%d].status %q: want pending, in_progress or completed", tool.ErrInvalidArgs, i, it.Status)
		}
	}
	tool.CallFrom(ctx).SetAttribute(Attribute, items)
	return render(items, counts), nil
}

// render is the result the model reads: the counts and the list.
func render(items []Item, counts map[string]int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Checklist saved: %d completed, %d in progress, %d pending.\n", counts[Completed], counts[InProgress], counts[Pending])
	mark := map[string]string{Pending: "[ ]", InProgress: "[~]", Completed: "[x]"}
	for _, it := range items {
		fmt.Fprintf(&b, "%s %s\n", mark[it.Status], it.Content)
	}
	return b.String()
}
