package todo

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/agentry/agentry/delegation/tool"
)

func TestWriteKeepsTheChecklistOnTheSpan(t *testing.T) {
	c := &tool.Call{}
	out, err := New().Call(tool.WithCall(context.Background(), c), json.RawMessage(`{"todos":[
		{"content":"Read the code","status":"completed"},
		{"content":"Run the tests","status":"in_progress","activeForm":"Running the tests"},
		{"content":"Write the report","status":"pending"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "Checklist saved: 1 completed, 1 in progress, 1 pending.\n[x] Read the code\n[~] Run the tests\n[ ] Write the report\n"
	if out != want {
		t.Errorf("result %q, want %q", out, want)
	}
	got := c.Attributes(nil)[Attribute]
	items := []Item{{"Read the code", Completed, ""}, {"Run the tests", InProgress, "Running the tests"}, {"Write the report", Pending, ""}}
	if !reflect.DeepEqual(got, items) {
		t.Errorf("span attribute %s = %#v, want %#v", Attribute, got, items)
	}
}

func TestAnEmptyListClearsTheChecklist(t *testing.T) {
	c := &tool.Call{}
	if _, err := New().Call(tool.WithCall(context.Background(), c), json.RawMessage(`{"todos":[]}`)); err != nil {
		t.Fatal(err)
	}
	if got := c.Attributes(nil)[Attribute]; !reflect.DeepEqual(got, []Item{}) {
		t.Errorf("attribute = %#v, want an empty list", got)
	}
}

func TestWriteRejectsBadItems(t *testing.T) {
	for _, raw := range []string{
		`{}`,
		`{"todos":[{"content":"x","status":"done"}]}`,
		`{"todos":[{"content":" ","status":"pending"}]}`,
		`{"todos":[{"content":"x","status":"pending","priority":"high"}]}`,
	} {
		if _, err := New().Call(context.Background(), json.RawMessage(raw)); !errors.Is(err, tool.ErrInvalidArgs) {
			t.Errorf("Call(%s) error = %v; want ErrInvalidArgs", raw, err)
		}
	}
}
