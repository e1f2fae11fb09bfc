package runs

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

func TestSpanDetailShowsTheCircuitBreakerStates(t *testing.T) {
	s := sp("t", "", trace.KindExecuteTool, "a", 0, 5, trace.StatusError)
	s.Attributes = map[string]any{semconv.AttrToolName: "fs.read", attrCircuit: "open", attrCircuitServer: "half_open"}
	d := BuildSpanDetail(s)
	if d.Circuit != "open; MCP server half_open" || len(d.Other) != 0 {
		t.Fatalf("circuit = %q, other = %v", d.Circuit, d.Other)
	}
	var b bytes.Buffer
	if err := SpanDetailPanel(d).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<dt>Circuit breaker</dt><dd>open; MCP server half_open</dd>") {
		t.Fatalf("panel lacks the circuit line:\n%s", b.String())
	}
}
