package delegation

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
)

func TestAChatThatFailsTransientlyRecordsARetryEventBeforeTheBackoff(t *testing.T) {
	var waits []time.Duration
	f := setup(t, map[string]string{"three": "retry: {max_attempts: 3}\n", "two": "retry: {max_attempts: 2}\n"},
		"three:\n  - error: first 503\n  - error: second 503\n  - say: ok\ntwo:\n  - error: x\n  - error: last 503\n",
		func(c *Config) {
			c.RetryBackoff = time.Second
			c.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
		})
	f.run(t, "three", "x")
	chats := f.sink.named("chat script")
	if len(chats) != 3 || len(waits) != 2 {
		t.Fatalf("%d chat spans, waits %v; want 3 and 2 waits", len(chats), waits)
	}
	for i, want := range []struct {
		attempt int
		waitMS  int64
		err     string
	}{{1, 1000, "first 503"}, {2, 2000, "second 503"}} {
		sp := chats[i]
		if len(sp.Events) != 1 {
			t.Fatalf("chat %d has events %+v, want one retry", i, sp.Events)
		}
		ev := sp.Events[0]
		a := ev.Attributes
		if ev.Name != trace.EventRetry || a[trace.EventAttrAttempt] != want.attempt ||
			a[trace.EventAttrWaitMS] != want.waitMS || !strings.Contains(a[trace.EventAttrError].(string), want.err) {
			t.Errorf("chat %d event = %+v; want retry attempt %d wait_ms %d error %q", i, ev, want.attempt, want.waitMS, want.err)
		}
		if ev.Time.Before(sp.StartedAt) || ev.Time.After(sp.EndedAt) {
			t.Errorf("chat %d event at %v, outside the span %v..%v", i, ev.Time, sp.StartedAt, sp.EndedAt)
		}
		if next := chats[i+1].Attributes[trace.AttrRetryAttempt]; next != want.attempt {
			t.Errorf("the event's attempt %d is not the next span's retry_attempt %v", want.attempt, next)
		}
	}
	if ev := chats[2].Events; len(ev) != 0 {
		t.Errorf("the call that succeeded has events %+v", ev)
	}

	f.run(t, "two", "x")
	last := f.sink.named("chat script")[4]
	if last.Status != trace.StatusError || len(last.Events) != 0 {
		t.Errorf("the last allowed attempt failed with events %+v; want none, no retry follows", last.Events)
	}
}

// gateLLM answers once open is closed, so a child holds its slot until the
// test has seen the next delegation queue. The minute is only a backstop
// for a runtime that never queues: the test then fails instead of hanging.
type gateLLM struct{ open <-chan struct{} }

func (g gateLLM) Name() string { return "gate" }
func (g gateLLM) Generate(ctx context.Context, _ *model.Request) (*model.Response, error) {
	select {
	case <-g.open:
	case <-time.After(time.Minute):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &model.Response{Text: "done"}, nil
}

// queueWatch passes records on and closes queued at the first queued event.
type queueWatch struct {
	trace.Sink
	once   sync.Once
	queued chan struct{}
}

func (q *queueWatch) RecordSpan(sp trace.Span) {
	q.Sink.RecordSpan(sp)
	for _, e := range sp.Events {
		if e.Name == trace.EventQueued {
			q.once.Do(func() { close(q.queued) })
		}
	}
}

func TestADelegationWaitingForASlotRecordsQueuedAndAdmitted(t *testing.T) {
	cases := []struct {
		name              string
		perAgent, runWide int
		wantCap           string
		wantLimit         int
	}{
		{"under the parent's max_concurrent", 1, 0, trace.CapAgent, 1},
		{"under the run-wide cap", 5, 1, trace.CapRun, 1},
	}
	const script = `
coord:
  - calls:
      - {tool: delegate, args: {agent: leaf, task: "one"}}
      - {tool: delegate, args: {agent: leaf, task: "two"}}
  - say: both done
`
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			watch := &queueWatch{queued: make(chan struct{})}
			agents := map[string]string{
				"coord": "subagents:\n  allow: [leaf]\n  max_concurrent: " + string(rune('0'+c.perAgent)) + "\n",
				"leaf":  "model: gate\n",
			}
			f := setup(t, agents, script, func(cfg *Config) {
				cfg.Models["gate"] = func(string) (model.LLM, error) { return gateLLM{watch.queued}, nil }
				cfg.MaxConcurrent = c.runWide
				watch.Sink = cfg.Sink
				cfg.Sink = watch
			})
			if res := f.run(t, "coord", "x"); res.Status != trace.StatusOK {
				t.Fatalf("result = %+v", res)
			}
			ds := f.sink.named("execute_tool delegate")
			if len(ds) != 2 {
				t.Fatalf("%d delegations, want 2", len(ds))
			}
			if len(ds[0].Events) != 0 {
				t.Errorf("the first delegation, admitted at once, has events %+v", ds[0].Events)
			}
			ev := ds[1].Events
			if len(ev) != 2 || ev[0].Name != trace.EventQueued || ev[1].Name != trace.EventAdmitted {
				t.Fatalf("the second delegation's events = %+v; want queued then admitted", ev)
			}
			for _, e := range ev {
				if e.Attributes[trace.EventAttrCap] != c.wantCap || e.Attributes[trace.EventAttrLimit] != c.wantLimit {
					t.Errorf("%s event = %+v; want cap %s limit %d", e.Name, e, c.wantCap, c.wantLimit)
				}
			}
			if agent, ok := ev[0].Attributes[trace.EventAttrAgent]; (c.wantCap == trace.CapAgent) != ok || (ok && agent != "coord") {
				t.Errorf("queued names agent %v; want coord only for the agent's cap", agent)
			}
			if w, ok := ev[1].Attributes[trace.EventAttrWaitedMS].(int64); !ok || w < 0 || ev[1].Time.Before(ev[0].Time) {
				t.Errorf("admitted = %+v; want waited_ms and a time after queued", ev[1])
			}
		})
	}
}
