//go:build stress

package delegation

import (
	"context"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
)

// TestStressManyRunsWithPanickingToolsAndModelsAllComplete starts many runs
// at once, each with a tool and a model that panic in parallel branches, and
// checks that every run ends ok with both panics on its spans.
func TestStressManyRunsWithPanickingToolsAndModelsAllComplete(t *testing.T) {
	const runs = 500
	f := panicFixture(t)
	execs := make([]*Execution, runs)
	for i := range execs {
		e, err := f.rt.Start(context.Background(), Request{Agent: "coord", Task: "x"})
		if err != nil {
			t.Fatal(err)
		}
		execs[i] = e
	}
	guard := time.After(deadlockGuard)
	for i, e := range execs {
		select {
		case <-e.Done():
		case <-guard:
			t.Fatalf("run %d of %d did not end", i, runs)
		}
		if res := e.Result(); res.Status != trace.StatusOK {
			t.Errorf("run %d: %+v", i, res)
		}
	}
	panicked := map[string]int{}
	for _, sp := range f.sink.all() {
		if sp.Status == trace.StatusRunning {
			t.Errorf("span %s left running", sp.Name)
		}
		if _, ok := sp.Attributes[AttrPanic]; ok {
			panicked[sp.Name]++
		}
	}
	if panicked["chat panicky"] != runs || panicked["execute_tool test.boom"] != runs {
		t.Fatalf("panicked spans = %v, want %d of each", panicked, runs)
	}
}
