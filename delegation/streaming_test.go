package delegation

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
)

func TestParallelStreamingLetsFollowUpsFinishBeforeTheSlowestBranch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agents := map[string]string{"coord": "subagents:\n  allow: [slow, fast, follow]\n  execution: parallel_streaming\n",
			"slow": "", "fast": "", "follow": ""}
		f := setup(t, agents, `
coord:
  - calls:
      - {tool: delegate, args: {agent: slow, task: "the long one"}}
      - {tool: delegate, args: {agent: fast, task: "the short one"}}
  - calls: [{tool: delegate, args: {agent: follow, task: "act on the short one"}}]
  - say: "waiting for slow"
  - say: "all three in"
slow:
  - {latency: 100ms, say: "slow done"}
fast:
  - {latency: 10ms, say: "fast done"}
follow:
  - {latency: 10ms, say: "follow-up done"}
`, nil)
		res := f.run(t, "coord", "x")
		if res.Status != trace.StatusOK || res.Result != "all three in" {
			t.Fatalf("result = %+v", res)
		}
		slow, follow := f.sink.one(t, "invoke_agent slow"), f.sink.one(t, "invoke_agent follow")
		if !follow.EndedAt.Before(slow.EndedAt) {
			t.Errorf("the follow-up ended at %v, after the slow branch (%v)", follow.EndedAt, slow.EndedAt)
		}
		if d := slow.EndedAt.Sub(f.sink.one(t, "invoke_agent coord").StartedAt); d > 110*time.Millisecond {
			t.Errorf("slow ended %v after the start, want about its 100ms", d)
		}
	})
}

// followUpModel plays a coordinator that starts one slow and n fast
// branches, and a follow-up for each fast result as soon as it sees it,
// and the branches themselves with fixed latencies: the benchmark's load.
type followUpModel struct {
	n                int
	slow, fast, each time.Duration
	calls            atomic.Int64
}

func (m *followUpModel) Name() string { return "followup" }

func (m *followUpModel) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	m.calls.Add(1)
	switch req.Agent {
	case "slow":
		return m.after(ctx, m.slow, "slow done")
	case "fast":
		return m.after(ctx, m.fast, "fast done")
	case "follow":
		return m.after(ctx, m.each, "follow-up done")
	}
	var landed, asked, follows int
	for _, msg := range req.Messages {
		landed += strings.Count(msg.Content, `fast done`)
		follows += strings.Count(msg.Content, `follow-up done`)
		for _, c := range msg.ToolCalls {
			if strings.Contains(string(c.Args), `"follow"`) {
				asked++
			}
		}
	}
	if len(req.Messages) == 1 {
		calls := []model.ToolCall{del("slow", "s")}
		for i := range m.n {
			calls = append(calls, del("fast", fmt.Sprint("f", i)))
		}
		return &model.Response{ToolCalls: calls}, nil
	}
	var calls []model.ToolCall
	for i := asked; i < landed; i++ {
		calls = append(calls, del("follow", fmt.Sprint("u", i)))
	}
	if len(calls) > 0 {
		return &model.Response{ToolCalls: calls}, nil
	}
	return &model.Response{Text: fmt.Sprintf("%d follow-ups done", follows)}, nil
}

func (m *followUpModel) after(ctx context.Context, d time.Duration, text string) (*model.Response, error) {
	if err := model.Sleep(ctx, d); err != nil {
		return nil, err
	}
	return &model.Response{Text: text}, nil
}

func del(agent, task string) model.ToolCall {
	args, _ := json.Marshal(map[string]string{"agent": agent, "task": task})
	return model.ToolCall{Name: DelegateTool, Args: args}
}

// BenchmarkStreamingAgainstParallel runs one slow branch (40ms) and three
// fast ones (5ms), each fast result followed up by a 10ms agent: with
// parallel the follow-ups wait for the slow branch; with
// parallel_streaming they finish before it. ms/run is wall time per run.
func BenchmarkStreamingAgainstParallel(b *testing.B) {
	for _, mode := range []string{"parallel", "parallel_streaming"} {
		b.Run(mode, func(b *testing.B) {
			m := &followUpModel{n: 3, slow: 40 * time.Millisecond, fast: 5 * time.Millisecond, each: 10 * time.Millisecond}
			agents := map[string]string{"coord": "subagents:\n  allow: [slow, fast, follow]\n  max_concurrent: 8\n  execution: " + mode + "\n",
				"slow": "", "fast": "", "follow": ""}
			f := setup(b, agents, "coord: [{say: x}]\n", func(c *Config) {
				c.Models = model.Providers{"script": func(string) (model.LLM, error) { return m, nil }}
				c.Sink = discard{}
			})
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				res, err := f.rt.Run(context.Background(), Request{Agent: "coord", Task: "x"})
				if err != nil || res.Result != "3 follow-ups done" {
					b.Fatalf("result = %+v, %v", res, err)
				}
			}
			b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/run")
		})
	}
}
