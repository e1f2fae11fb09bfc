package delegation

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
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
		if ev.Name != semconv.EventRetry || a[semconv.EventAttrAttempt] != want.attempt ||
			a[semconv.EventAttrWaitMS] != want.waitMS || !strings.Contains(a[semconv.EventAttrError].(string), want.err) {
			t.Errorf("chat %d event = %+v; want retry attempt %d wait_ms %d error %q", i, ev, want.attempt, want.waitMS, want.err)
		}
		if ev.Time.Before(sp.StartedAt) || ev.Time.After(sp.EndedAt) {
			t.Errorf("chat %d event at %v, outside the span %v..%v", i, ev.Time, sp.StartedAt, sp.EndedAt)
		}
		if next := chats[i+1].Attributes[semconv.AttrRetryAttempt]; next != want.attempt {
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

func TestADelegationWaitingForASlotRecordsQueuedAndAdmitted(t *testing.T) {
	cases := []struct {
		name              string
		perAgent, runWide int
		wantCap           string
		wantLimit         int
	}{
		{"under the parent's max_concurrent", 1, 0, semconv.CapAgent, 1},
		{"under the run-wide cap", 5, 1, semconv.CapRun, 1},
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
			synctest.Test(t, func(t *testing.T) { queuedAndAdmitted(t, script, c.perAgent, c.runWide, c.wantCap, c.wantLimit) })
		})
	}
}

func queuedAndAdmitted(t *testing.T, script string, perAgent, runWide int, wantCap string, wantLimit int) {
	agents := map[string]string{
		"coord": "subagents:\n  allow: [leaf]\n  max_concurrent: " + string(rune('0'+perAgent)) + "\n",
		"leaf":  "",
	}
	f := setup(t, agents, script+"leaf: [{latency: 250ms, say: done}]\n", func(cfg *Config) {
		cfg.MaxConcurrent = runWide
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
	if len(ev) != 2 || ev[0].Name != semconv.EventQueued || ev[1].Name != semconv.EventAdmitted {
		t.Fatalf("the second delegation's events = %+v; want queued then admitted", ev)
	}
	for _, e := range ev {
		if e.Attributes[semconv.EventAttrCap] != wantCap || e.Attributes[semconv.EventAttrLimit] != wantLimit {
			t.Errorf("%s event = %+v; want cap %s limit %d", e.Name, e, wantCap, wantLimit)
		}
	}
	if agent, ok := ev[0].Attributes[semconv.EventAttrAgent]; (wantCap == semconv.CapAgent) != ok || (ok && agent != "coord") {
		t.Errorf("queued names agent %v; want coord only for the agent's cap", agent)
	}
	if w, ok := ev[1].Attributes[semconv.EventAttrWaitedMS].(int64); !ok || w != 250 || ev[1].Time.Sub(ev[0].Time) != 250*time.Millisecond {
		t.Errorf("admitted = %+v; want waited_ms 250, the first leaf's latency, 250 ms after queued", ev[1])
	}
}
