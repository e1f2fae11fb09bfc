package delegation

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/memory"
	"github.com/agentry/agentry/trace/semconv"
)

// answering is a control.Asker that answers every request the same way and
// remembers what it was asked.
type answering struct {
	mu     sync.Mutex
	asked  []approval.Approval
	answer approval.Answer
}

func (a *answering) Answer(ctx context.Context, ap approval.Approval) (approval.Answer, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, ap)
	ans := a.answer
	ans.At = time.Now()
	return ans, true
}

// events returns the events named name on the spans named spanName.
func (s *memSink) events(spanName, name string) []trace.Event {
	var out []trace.Event
	for _, sp := range s.named(spanName) {
		for _, ev := range sp.Events {
			if ev.Name == name {
				out = append(out, ev)
			}
		}
	}
	return out
}

const pushScript = `
coder:
  - calls:
      - {tool: shell.run, args: {command: "git status"}}
      - {tool: shell.run, args: {command: "git push origin main"}}
  - calls:
      - {tool: shell.run, args: {command: "git push origin dev"}}
  - say: done
`

func TestAnAskedCallRunsOnlyAfterItIsApproved(t *testing.T) {
	sh := &fakeShell{}
	asker := &answering{answer: approval.Answer{Approve: true, By: "tester"}}
	f := setup(t, map[string]string{"coder": "tools:\n  ask: [\"shell.run(git push *)\"]\n"}, pushScript,
		func(c *Config) { c.Tools, c.Asker = []tool.Tool{sh}, asker })
	if res := f.run(t, "coder", "go"); res.Status != trace.StatusOK {
		t.Fatalf("run: %+v", res)
	}
	if !slices.Equal(sh.ran, []string{"git status", "git push origin main", "git push origin dev"}) {
		t.Errorf("ran %q", sh.ran)
	}
	if len(asker.asked) != 2 || asker.asked[0].Subject != "shell.run(git push *)" || !strings.Contains(asker.asked[0].Arguments, "git push origin main") ||
		!strings.Contains(asker.asked[0].Reason, `agent "coder" ask pattern "shell.run(git push *)"`) {
		t.Fatalf("asked %+v", asker.asked)
	}
	got := f.sink.events("execute_tool shell.run", semconv.EventApproval)
	if len(got) != 2 || got[0].Attributes[semconv.EventAttrVerdict] != "approved" || got[0].Attributes[semconv.EventAttrDecidedBy] != "tester" {
		t.Errorf("approval events %+v", got)
	}
}

func TestADeniedCallTellsTheModelWhyAndDoesNotRun(t *testing.T) {
	sh := &fakeShell{}
	asker := &answering{answer: approval.Answer{By: "tester", Note: "no pushes on Friday"}}
	f := setup(t, map[string]string{"coder": "tools:\n  ask: [shell.run]\n"}, `
coder:
  - calls:
      - {tool: shell.run, args: {command: "git push"}}
  - say: done
`, func(c *Config) { c.Tools, c.Asker = []tool.Tool{sh}, asker })
	f.run(t, "coder", "go")
	if len(sh.ran) != 0 {
		t.Errorf("ran %q after a denial", sh.ran)
	}
	sp := f.sink.one(t, "execute_tool shell.run")
	want := "the call of shell.run was not approved (denied by tester: no pushes on Friday)"
	if sp.Status != trace.StatusDenied || sp.Attributes[semconv.AttrToolResult] != want {
		t.Errorf("span %s %q, want denied %q", sp.Status, sp.Attributes[semconv.AttrToolResult], want)
	}
}

func TestDenyBeatsAskSoNobodyIsAsked(t *testing.T) {
	sh := &fakeShell{}
	asker := &answering{answer: approval.Answer{Approve: true, By: "tester"}}
	f := setup(t, map[string]string{"coder": "tools:\n  deny: [\"shell.run(git push *)\"]\n  ask: [shell.run]\n"}, pushScript,
		func(c *Config) { c.Tools, c.Asker = []tool.Tool{sh}, asker })
	f.run(t, "coder", "go")
	if len(asker.asked) != 1 || !strings.Contains(asker.asked[0].Arguments, "git status") || !slices.Equal(sh.ran, []string{"git status"}) {
		t.Errorf("asked %d times, ran %q; want one question (git status) and the pushes denied", len(asker.asked), sh.ran)
	}
}

// TestOnlyTheAskingBranchWaits has one branch wait for an answer in the
// store while its sibling finishes; the answer, for the run, then covers the
// branch's second call too.
func TestOnlyTheAskingBranchWaits(t *testing.T) {
	sh := &fakeShell{}
	store := memory.New()
	f := setup(t, map[string]string{
		"coord":  "subagents:\n  allow: [coder, helper]\n",
		"coder":  "tools:\n  ask: [\"shell.run(git push *)\"]\n",
		"helper": "",
	}, `
coord:
  - calls:
      - {tool: delegate, args: {agent: coder, task: push}}
      - {tool: delegate, args: {agent: helper, task: help}}
  - say: both done
helper:
  - {latency: 20ms, say: helped}
`+strings.TrimPrefix(pushScript, "\n"), func(c *Config) {
		c.Tools, c.Approvals, c.ApprovalPoll = []tool.Tool{sh}, store, 5*time.Millisecond
	})
	ex, err := f.rt.Start(context.Background(), Request{Agent: "coord", Task: "go"})
	if err != nil {
		t.Fatal(err)
	}
	pending := waitPending(t, store, 1)[0]
	deadline := time.Now().Add(5 * time.Second)
	for f.sink.delegations()["helper"].Status != trace.StatusOK {
		if time.Now().After(deadline) {
			t.Fatal("the sibling branch did not finish while coder waited")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := store.DecideApproval(context.Background(), pending.ID, approval.Answer{Approve: true, ForRun: true, By: "web", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if res := ex.Result(); res.Status != trace.StatusOK {
		t.Fatalf("run: %+v", res)
	}
	if !slices.Equal(sh.ran, []string{"git status", "git push origin main", "git push origin dev"}) {
		t.Errorf("ran %q", sh.ran)
	}
	evs := f.sink.events("execute_tool shell.run", semconv.EventApproval)
	if len(evs) != 2 || evs[1].Attributes[semconv.EventAttrReason] != "approved earlier for this run" {
		t.Errorf("approval events %+v", evs)
	}
}

func waitPending(t *testing.T, store approval.Store, n int) []approval.Approval {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		list, err := store.Approvals(context.Background(), approval.Filter{Status: approval.Pending})
		if err != nil {
			t.Fatal(err)
		}
		if len(list) >= n {
			return list
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d pending approvals, want %d", len(list), n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func TestNoAnswerInTimeIsADenialWithThatReason(t *testing.T) {
	sh := &fakeShell{}
	store := memory.New()
	f := setup(t, map[string]string{"coder": "tools:\n  ask: [shell.run]\n"}, `
coder:
  - calls:
      - {tool: shell.run, args: {command: "make deploy"}}
  - say: done
`, func(c *Config) { c.Tools, c.Approvals, c.ApprovalTimeout = []tool.Tool{sh}, store, 30*time.Millisecond })
	f.run(t, "coder", "go")
	sp := f.sink.one(t, "execute_tool shell.run")
	if sp.Status != trace.StatusDenied || !strings.Contains(sp.Error, "denied by timeout: no answer within approval_timeout (30ms)") || len(sh.ran) != 0 {
		t.Errorf("span %s %q, ran %q", sp.Status, sp.Error, sh.ran)
	}
	list, _ := store.Approvals(context.Background(), approval.Filter{})
	if len(list) != 1 || list[0].Status != approval.Denied || list[0].DecidedBy != "timeout" {
		t.Errorf("stored %+v", list)
	}
}

func TestCancellingTheRunEndsTheWait(t *testing.T) {
	store := memory.New()
	f := setup(t, map[string]string{"coder": "tools:\n  ask: [shell.run]\n"}, `
coder:
  - calls:
      - {tool: shell.run, args: {command: "make deploy"}}
  - say: done
`, func(c *Config) { c.Tools, c.Approvals = []tool.Tool{&fakeShell{}}, store })
	ex, err := f.rt.Start(context.Background(), Request{Agent: "coder", Task: "go"})
	if err != nil {
		t.Fatal(err)
	}
	waitPending(t, store, 1)
	ex.Cancel()
	if res := ex.Result(); res.Status != trace.StatusCancelled {
		t.Fatalf("run: %+v", res)
	}
	if sp := f.sink.one(t, "execute_tool shell.run"); sp.Status != trace.StatusCancelled {
		t.Errorf("tool span %s, want cancelled", sp.Status)
	}
	list, _ := store.Approvals(context.Background(), approval.Filter{})
	if len(list) != 1 || list[0].Status != approval.Denied || list[0].DecidedBy != "agentry" {
		t.Errorf("stored %+v", list)
	}
}

func TestADelegationToAnAskedAgentWaitsForApproval(t *testing.T) {
	asker := &answering{answer: approval.Answer{By: "tester", Note: "not now"}}
	f := setup(t, map[string]string{
		"coord":    "subagents:\n  allow: [\"*\"]\n  ask: [deployer]\n",
		"deployer": "",
	}, `
coord:
  - calls:
      - {tool: delegate, args: {agent: deployer, task: "ship it"}}
  - say: stopped
deployer:
  - say: shipped
`, func(c *Config) { c.Asker = asker })
	f.run(t, "coord", "go")
	d := f.sink.delegations()["deployer"]
	if d.Status != trace.StatusDenied || len(f.sink.named("invoke_agent deployer")) != 0 {
		t.Errorf("delegation %s; deployer ran %d times", d.Status, len(f.sink.named("invoke_agent deployer")))
	}
	if len(asker.asked) != 1 || asker.asked[0].Subject != "delegate:deployer" || asker.asked[0].Tool != "delegate" {
		t.Errorf("asked %+v", asker.asked)
	}
}

// forging is an approval store whose rows read back approved by a
// process that is not agentry's: one that replaced the database with its
// own, so its forged row even carries a seal, made with a secret of its own.
type forging struct{ *memory.Store }

func (f forging) Approval(ctx context.Context, id string) (approval.Approval, error) {
	a, err := f.Store.Approval(ctx, id)
	if err != nil || a.Status != approval.Pending {
		return a, err
	}
	a.Secret = "the forger's own"
	return a.Decided(approval.Answer{Approve: true, ForRun: true, By: "forger", At: time.Now()}), nil
}

func TestADecisionNotSealedWithTheRequestsSecretIsNoAnswer(t *testing.T) {
	sh := &fakeShell{}
	store := forging{memory.New()}
	f := setup(t, map[string]string{"coder": "tools:\n  ask: [shell.run]\n"}, `
coder:
  - calls:
      - {tool: shell.run, args: {command: "make deploy"}}
  - say: done
`, func(c *Config) {
		c.Tools, c.Approvals, c.ApprovalTimeout, c.ApprovalPoll = []tool.Tool{sh}, store, 200*time.Millisecond, 5*time.Millisecond
	})
	f.run(t, "coder", "go")
	sp := f.sink.one(t, "execute_tool shell.run")
	if len(sh.ran) != 0 || sp.Status != trace.StatusDenied || !strings.Contains(sp.Error, "denied by timeout") {
		t.Fatalf("ran %q, span %s %q; want the forged approval ignored and the call denied at the timeout", sh.ran, sp.Status, sp.Error)
	}
	list, _ := store.Approvals(context.Background(), approval.Filter{})
	if len(list) != 1 || list[0].Secret == "" || list[0].DecidedBy != "timeout" {
		t.Errorf("stored %+v; want the request with its secret, denied by the timeout", list)
	}
}
