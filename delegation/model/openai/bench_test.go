package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/openai"
)

// BenchmarkGenerate measures what the adapter adds to a model call: mapping
// a mid-sized conversation (20 messages, 10 tools) through the SDK to the
// wire, a loopback round trip, and parsing a tool-call answer back. A real
// provider's latency is hundreds of milliseconds; this is the part agentry
// pays on top of it.
func BenchmarkGenerate(b *testing.B) {
	answer := testdata(b, "toolcall.response.json")
	var reqBytes atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqBytes.Add(r.ContentLength)
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	}))
	defer srv.Close()
	llm, err := openai.New("gpt-4.1-mini", openai.Config{BaseURL: srv.URL + "/v1", APIKey: testKey})
	if err != nil {
		b.Fatal(err)
	}
	req := benchRequest()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := llm.Generate(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/call")
	b.ReportMetric(float64(reqBytes.Load())/float64(b.N), "req-bytes/call")
}

func benchRequest() *model.Request {
	req := &model.Request{System: "You coordinate research. Delegate, then sum up."}
	for i := range 10 {
		req.Tools = append(req.Tools, model.Tool{
			Name:        fmt.Sprintf("group%d.tool_%d", i/3, i),
			Description: "A tool the agent may use.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"}},"required":["path"]}`),
		})
	}
	req.Messages = append(req.Messages, model.Message{Role: model.RoleUser, Content: "Summarise Q4 sales."})
	for i := range 6 {
		id := fmt.Sprintf("call_%d", i)
		req.Messages = append(req.Messages,
			model.Message{Role: model.RoleAssistant, Content: "Looking.", ToolCalls: []model.ToolCall{
				{ID: id, Name: "group1.tool_4", Args: json.RawMessage(`{"path":"notes/q4.md","limit":10}`)},
			}},
			model.Message{Role: model.RoleTool, ToolCallID: id, Content: "Q4: strong December, weak October, flat November."},
			model.Message{Role: model.RoleUser, Content: "Go on."})
	}
	return req
}
