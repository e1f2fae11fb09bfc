package delegation

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/trace"
)

// A model call or tool call whose context an engine ends with the cause
// ErrHandedOver (Temporal, when a worker stops) is left to the engine's
// retry, which makes it again with the same span IDs: its chat or
// execute_tool span stays running, for the retry to end. Any other end
// of the context ends it cancelled.
func TestAHandedOverCallLeavesItsSpanRunning(t *testing.T) {
	for _, tc := range []struct {
		cause error
		want  trace.Status
	}{
		{fmt.Errorf("%w: worker is now shutdown", ErrHandedOver), trace.StatusRunning},
		{errors.New("worker is now shutdown"), trace.StatusCancelled},
	} {
		t.Run(string(tc.want), func(t *testing.T) {
			held := func(ctx context.Context) (string, error) { <-ctx.Done(); return "", ctx.Err() }
			f := setup(t, map[string]string{"leaf": ""}, "", func(c *Config) {
				c.Models = model.Providers{"script": func(string) (model.LLM, error) { return heldModel{}, nil }}
				c.Tools = []tool.Tool{testTool("test.held", held)}
			})
			st := f.rt.Steps()
			fr, ended, err := st.Root(context.Background(), "k/0", trace.Run{ID: "run1"}, Request{Agent: "leaf", Task: "go"})
			if err != nil || ended != nil {
				t.Fatalf("root: %v %v", ended, err)
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(tc.cause)
			st.Turn(ctx, "k/1", fr, 0, false)
			if _, _, err := st.Tool(ctx, "k/2", fr, model.ToolCall{ID: "c1", Name: "test.held"}, "k/2", nil); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"chat held", "execute_tool test.held"} {
				if sp := f.sink.one(t, name); sp.Status != tc.want {
					t.Errorf("%s span = %s (%s); want %s", name, sp.Status, sp.Error, tc.want)
				}
			}
		})
	}
}

// heldModel's calls hold until their context ends, as a model call in
// flight does.
type heldModel struct{}

func (heldModel) Name() string { return "held" }

func (heldModel) Generate(ctx context.Context, _ *model.Request) (*model.Response, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}
