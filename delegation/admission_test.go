package delegation

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// A call that waits behind others is queued from the moment its span starts;
// the waited_ms of its last admitted event and its queued_ms must say the
// same, also for a call that joined a cap's line only after the calls before
// it were admitted.
func TestAQueuedCallsAdmittedEventAgreesWithItsQueuedMS(t *testing.T) {
	cases := []struct {
		name              string
		perAgent, runWide int
	}{
		{"under the parent's max_concurrent", 1, 0},
		{"under the run-wide cap", 5, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agents := map[string]string{"coord": fmt.Sprintf("subagents:\n  allow: [leaf]\n  max_concurrent: %d\n", c.perAgent), "leaf": ""}
				f := setup(t, agents, fanOutScript(3)+"leaf: [{latency: 100ms, say: done}]\n", func(cfg *Config) {
					cfg.MaxConcurrent = c.runWide
				})
				if res := f.run(t, "coord", "x"); res.Status != trace.StatusOK {
					t.Fatalf("result = %+v", res)
				}
				for i, d := range f.sink.named("execute_tool delegate") {
					q, _ := d.Attributes[semconv.AttrQueuedMS].(int64)
					if want := int64(i * 100); q != want {
						t.Errorf("call %d: queued_ms = %d, want %d", i, q, want)
					}
					var last *trace.Event
					for j := range d.Events {
						if d.Events[j].Name == semconv.EventAdmitted {
							last = &d.Events[j]
						}
					}
					switch {
					case i == 0 && last != nil:
						t.Errorf("call 0 was admitted at once, yet has %+v", d.Events)
					case i > 0 && last == nil:
						t.Errorf("call %d waited %d ms without an admitted event: %+v", i, q, d.Events)
					case i > 0 && last.Attributes[semconv.EventAttrWaitedMS] != q:
						t.Errorf("call %d: admitted waited_ms = %v, queued_ms = %d; want them equal", i, last.Attributes[semconv.EventAttrWaitedMS], q)
					}
				}
			})
		})
	}
}

// holdLLM answers only when its context ends, so a child keeps its slot
// until the run is cancelled.
type holdLLM struct{}

func (holdLLM) Name() string { return "hold" }
func (holdLLM) Generate(ctx context.Context, _ *model.Request) (*model.Response, error) {
	<-ctx.Done()
	return nil, context.Cause(ctx)
}

func TestNothingStartsAfterCancel(t *testing.T) {
	cases := []struct {
		name              string
		perAgent, runWide int
		execution         string
	}{
		{"calls queued under the parent's max_concurrent", 1, 0, "parallel"},
		{"calls queued under the run-wide cap", 5, 1, "parallel"},
		{"calls waiting their turn in a sequential batch", 5, 0, "sequential"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const n = 6
				agents := map[string]string{
					"coord": fmt.Sprintf("subagents:\n  allow: [leaf]\n  max_concurrent: %d\n  execution: %s\n", c.perAgent, c.execution),
					"leaf":  "model: hold\n",
				}
				f := setup(t, agents, fanOutScript(n), func(cfg *Config) {
					cfg.Models["hold"] = func(string) (model.LLM, error) { return holdLLM{}, nil }
					cfg.MaxConcurrent = c.runWide
				})
				e, err := f.rt.Start(context.Background(), Request{Agent: "coord", Task: "x"})
				if err != nil {
					t.Fatal(err)
				}
				synctest.Wait() // the first leaf holds its slot, the others wait in line
				time.Sleep(time.Second)
				cancelledAt := time.Now()
				e.Cancel()
				<-e.Done()
				if res := e.Result(); res.Status != trace.StatusCancelled {
					t.Fatalf("result = %+v", res)
				}
				for _, sp := range f.sink.all() {
					if sp.Kind == trace.KindInvokeAgent && !sp.StartedAt.Before(cancelledAt) {
						t.Errorf("%s started after Cancel", sp.Name)
					}
					if !sp.EndedAt.Before(cancelledAt) && sp.Status != trace.StatusCancelled {
						t.Errorf("%s ended %s, want cancelled", sp.Name, sp.Status)
					}
				}
				if leaves := f.sink.named("invoke_agent leaf"); len(leaves) != 1 {
					t.Errorf("%d leaves started, want only the one running before Cancel", len(leaves))
				}
				if ds := f.sink.named("execute_tool delegate"); len(ds) != n {
					t.Errorf("%d delegation spans, want %d, each ended cancelled", len(ds), n)
				}
			})
		})
	}
}

func TestGeneralPurposeKeepsTheParentsLimits(t *testing.T) {
	parent := registry.Agent{Name: "coord", Prompt: "p", MaxTurns: 7, Timeout: 90 * time.Second,
		Retry: registry.Retry{MaxAttempts: 5, Backoff: registry.BackoffConstant}}
	gp := (&invocation{agent: parent}).generalPurpose()
	if gp.Timeout != parent.Timeout || gp.MaxTurns != parent.MaxTurns || gp.Retry != parent.Retry || gp.Prompt != parent.Prompt {
		t.Fatalf("general-purpose = %+v; want the parent's prompt, timeout, max_turns and retry", gp)
	}
}

// Providers learn which invocation a call belongs to, and why it is made,
// from the request itself.
func TestModelRequestsNameTheirInvocationAndPurpose(t *testing.T) {
	sc := `
coord:
  - calls:
      - {tool: delegate, args: {agent: leaf, task: "one"}}
      - {tool: delegate, args: {agent: leaf, task: "two", context: summary}}
  - say: done
leaf: [{say: leaf done}]
`
	rec := &recorder{}
	f := setup(t, map[string]string{"coord": "subagents:\n  allow: [leaf]\n", "leaf": ""}, sc, withRecorder(sc, rec))
	if res := f.run(t, "coord", "x"); res.Status != trace.StatusOK {
		t.Fatalf("result = %+v", res)
	}
	coordID := f.sink.one(t, "invoke_agent coord").ID
	var turns, summaries int
	for _, req := range rec.reqs["coord"] {
		if req.Invocation != coordID {
			t.Errorf("coord's request names invocation %q, want its span %q", req.Invocation, coordID)
		}
		switch req.Purpose {
		case model.PurposeTurn:
			turns++
		case model.PurposeSummary:
			summaries++
		}
	}
	if turns != 2 || summaries != 1 {
		t.Errorf("coord made %d turns and %d summary calls, want 2 and 1", turns, summaries)
	}
	leaves := map[string]bool{}
	for _, sp := range f.sink.named("invoke_agent leaf") {
		leaves[sp.ID] = true
	}
	for _, req := range rec.reqs["leaf"] {
		if !leaves[req.Invocation] || req.Purpose != model.PurposeTurn {
			t.Errorf("leaf request: invocation %q purpose %q; want one of its own spans %v, a turn", req.Invocation, req.Purpose, leaves)
		}
		delete(leaves, req.Invocation)
	}
	if len(leaves) != 0 {
		t.Errorf("invocations %v made no request of their own", leaves)
	}
}

// The delegate tool is built once per delegator and snapshot; a changed
// registry offers the changed agents on the next run.
func TestTheDelegateToolFollowsRegistryChangesBetweenRuns(t *testing.T) {
	sc := "coord: [{say: done}]\n"
	rec := &recorder{}
	f := setup(t, map[string]string{"coord": "subagents:\n  allow: [a, b]\n", "a": ""}, sc, withRecorder(sc, rec))
	offered := func() string {
		reqs := rec.reqs["coord"]
		for _, tl := range reqs[len(reqs)-1].Tools {
			if tl.Name == DelegateTool {
				return string(tl.Parameters)
			}
		}
		return ""
	}
	f.run(t, "coord", "x")
	f.run(t, "coord", "x")
	if p := offered(); !strings.Contains(p, `["a","general-purpose"]`) {
		t.Fatalf("delegate parameters = %s, want a and general-purpose", p)
	}
	fsys := fstest.MapFS{}
	for name, extra := range map[string]string{"coord": "subagents:\n  allow: [a, b]\n", "a": "", "b": ""} {
		fsys[name+".md"] = &fstest.MapFile{Data: []byte(agentFile(name, extra))}
	}
	snap, err := registry.Load(fsys, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.reg.Replace(snap)
	f.run(t, "coord", "x")
	if p := offered(); !strings.Contains(p, `["a","b","general-purpose"]`) {
		t.Fatalf("after b was added, delegate parameters = %s", p)
	}
}
