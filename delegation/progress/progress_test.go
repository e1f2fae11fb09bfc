package progress

import (
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/semconv"
)

// TestARefusedCallIsOneLine: a call a person refused prints the answer,
// who gave it and why, once; the span's end, denied, adds no second line.
func TestARefusedCallIsOneLine(t *testing.T) {
	var out strings.Builder
	p := New(&out, false)
	sp := trace.Span{ID: "s1", Kind: trace.KindExecuteTool, Name: "execute_tool shell.run", Status: trace.StatusRunning,
		Attributes: map[string]any{semconv.AttrToolName: "shell.run"}}
	p.RecordSpan(sp)
	sp.Events = []trace.Event{{Name: semconv.EventApproval, Time: time.Now(), Attributes: map[string]any{
		semconv.EventAttrVerdict: string(approval.Denied), semconv.EventAttrDecidedBy: "cli", semconv.EventAttrReason: "not now"}}}
	sp.Status, sp.Error = trace.StatusDenied, "the call of shell.run was not approved (denied by cli: not now)"
	p.RecordSpan(sp)
	if got := out.String(); got != "  ⊘ shell.run denied by cli: not now\n" {
		t.Errorf("printed %q", got)
	}
	out.Reset()
	other := trace.Span{ID: "s2", Kind: trace.KindExecuteTool, Name: "execute_tool web.fetch", Status: trace.StatusDenied,
		Error: "tool web.fetch is not allowed", Attributes: map[string]any{semconv.AttrToolName: "web.fetch"}}
	p.RecordSpan(other)
	if got := out.String(); got != "  ⊘ web.fetch denied: tool web.fetch is not allowed\n" {
		t.Errorf("a denial no one answered printed %q", got)
	}
}
