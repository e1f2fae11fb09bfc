package delegation

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/hooks"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/semconv"
)

// A tool call an engine ends on a context already ended with the cause
// ErrLastAttemptLost (Temporal's ToolLost, when the worker of its last
// attempt was killed) is not made: its execute_tool span ends error with
// that cause, and nothing runs before or after it for it, neither the
// user's pre_tool and post_tool hooks (here on_error: block, so a hook
// that could not start would block the call and end it denied) nor an
// approval asked of anyone. The answer an engine waited for before the
// call (ans) is recorded on the span still, as it was given.
func TestALostToolCallRunsNoHookAndAsksNobody(t *testing.T) {
	const ask = "tools:\n  ask: [test.once]\n"
	answered := &approval.Approval{ID: "a1", SpanID: "earlier", Status: approval.Approved, DecidedBy: "tester"}
	for name, tc := range map[string]struct {
		tools string
		ans   *approval.Approval
	}{"allowed": {"", nil}, "ask": {ask, nil}, "answered": {ask, answered}} {
		t.Run(name, func(t *testing.T) {
			ws := t.TempDir()
			log := filepath.Join(ws, "hooks.log")
			hook := hookScript(t, `echo "$0 ran" >> `+log+"\n")
			set := hooks.Set{
				hooks.PreTool:  {{Command: hook + " pre_tool", OnError: hooks.OnErrorBlock}},
				hooks.PostTool: {{Command: hook + " post_tool", OnError: hooks.OnErrorBlock}},
			}
			calls, asker := 0, &answering{answer: approval.Answer{Approve: true, By: "tester"}}
			once := testTool("test.once", func(context.Context) (string, error) { calls++; return "done", nil })
			f := setup(t, map[string]string{"leaf": tc.tools}, "", func(c *Config) {
				r, err := hooks.New(set, ws)
				if err != nil {
					t.Fatal(err)
				}
				c.Hooks, c.Tools, c.Asker = r, []tool.Tool{once}, asker
			})
			st := f.rt.Steps()
			fr, ended, err := st.Root(context.Background(), "k/0", trace.Run{ID: "run1"}, Request{Agent: "leaf", Task: "go"})
			if err != nil || ended != nil {
				t.Fatalf("root: %v %v", ended, err)
			}
			ctx, end := context.WithCancelCause(context.Background())
			end(fmt.Errorf("%w, so the tool call ends, not left to a retry: %w", ErrLastAttemptLost, errors.New("activity StartToClose timeout")))
			out, _, err := st.Tool(ctx, "k/1", fr, model.ToolCall{ID: "c1", Name: "test.once", Args: []byte(`{}`)}, "k/1", tc.ans)
			if err != nil {
				t.Fatal(err)
			}
			sp := f.sink.one(t, "execute_tool test.once")
			if sp.Status != trace.StatusError || !strings.Contains(sp.Error, ErrLastAttemptLost.Error()) || !strings.Contains(out, "not run") {
				t.Errorf("span %s (%s), model reads %q; want error, the call not run", sp.Status, sp.Error, out)
			}
			if calls != 0 {
				t.Errorf("the tool was called %d times", calls)
			}
			approvals := 0
			for _, ev := range sp.Events {
				switch ev.Name {
				case semconv.EventHook:
					t.Errorf("span event %s %v; want no hook for a call not made", ev.Name, ev.Attributes)
				case semconv.EventApprovalRequested, semconv.EventApproval:
					approvals++
					if tc.ans == nil {
						t.Errorf("span event %s %v; want nobody asked about a call not made", ev.Name, ev.Attributes)
					}
				}
			}
			if tc.ans != nil && approvals == 0 {
				t.Errorf("span events %v; want the engine's answer recorded", sp.Events)
			}
			if b, err := os.ReadFile(log); err == nil || !errors.Is(err, os.ErrNotExist) {
				t.Errorf("hooks ran: %q (%v)", b, err)
			}
		})
	}
}
