package delegation

import (
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// TestAWallClockBudgetStopsNewModelCalls is the in-process guard of the
// clock comparison on every ask (control.ClockSpent): the budget runs out
// while the first model call is under way, and no second call starts
// however the scheduler orders the goroutines. The engine cases run the
// same rule on both engines (delegation/temporal/cases_test.go).
func TestAWallClockBudgetStopsNewModelCalls(t *testing.T) {
	f := setup(t, map[string]string{"slow": ""}, `
slow:
  - {latency: 80ms, calls: [{tool: shell.run, args: {command: "ls"}}]}
  - say: never
`, func(c *Config) {
		c.Tools, c.Budget = []tool.Tool{&fakeShell{}}, registry.Budget{WallClock: 20 * time.Millisecond}
	})
	res := f.run(t, "slow", "go")
	if res.Status != trace.StatusLimit || !strings.HasPrefix(res.Result, "The run stopped at its budget: the wall clock budget of 20ms ran out.") {
		t.Errorf("run: %+v", res)
	}
}
