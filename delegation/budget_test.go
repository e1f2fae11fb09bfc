package delegation

import (
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// fruitScript spends 60 tokens in coord's first turn and 80 in alpha, so
// beta's first turn (40) takes a 150-token budget over while it still has
// work to do.
const fruitScript = `
coord:
  - tokens: {input: 50, output: 10}
    calls:
      - {tool: delegate, args: {agent: alpha, task: "count the apples"}}
      - {tool: delegate, args: {agent: beta, task: "count the pears"}}
      - {tool: delegate, args: {agent: gamma, task: "count the plums"}}
  - say: "all counted"
alpha:
  - {say: "7 apples", tokens: {input: 60, output: 20}}
beta:
  - tokens: {input: 30, output: 10}
    calls:
      - {tool: shell.run, args: {command: "ls pears"}}
  - say: "5 pears"
gamma:
  - say: "2 plums"
`

var fruitAgents = map[string]string{
	"coord": "subagents:\n  allow: [alpha, beta, gamma]\n  execution: sequential\n",
	"alpha": "", "beta": "", "gamma": "",
}

func TestABudgetStopEndsWithAPartialProgressReport(t *testing.T) {
	sh := &fakeShell{}
	base := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	f := setup(t, fruitAgents, fruitScript, func(c *Config) {
		c.Tools, c.Budget = []tool.Tool{sh}, registry.Budget{Tokens: 150}
		c.Now = func() time.Time { return base }
	})
	res := f.run(t, "coord", "count the fruit")
	if res.Status != trace.StatusLimit {
		t.Fatalf("run: %+v", res)
	}
	want := `The run stopped at its budget: 180 tokens used of a budget of 150.

Done:
- alpha: "count the apples" → 7 apples

Not done:
- coord (the root): "count the fruit" (stopped by the budget)
- beta: "count the pears" (stopped by the budget)
- gamma: "count the plums" (not started: the budget was spent)

Used: 180 tokens, 0s of wall clock.
Estimate to finish: about 240 more tokens (3 not done at the 80 tokens a finished agent invocation took on average).
Continue with a larger budget: agentry run --continue ` + res.RunID + ` --budget-tokens 420
`
	if res.Result != want {
		t.Errorf("report:\n%s\nwant:\n%s", res.Result, want)
	}
	if len(sh.ran) != 1 {
		t.Errorf("beta's running tool call should finish: ran %q", sh.ran)
	}
	if d := f.sink.delegations()["gamma"]; d.Status != trace.StatusLimit || d.Attributes[AttrRefused] != RefusedBudget {
		t.Errorf("gamma's delegation %s %v", d.Status, d.Attributes[AttrRefused])
	}
	if n := len(f.sink.named("chat script")); n != 3 {
		t.Errorf("%d model calls, want 3: none after the budget was spent", n)
	}
}

func TestARunThatFinishesWithinItsBudgetKeepsItsAnswer(t *testing.T) {
	f := setup(t, fruitAgents, fruitScript, func(c *Config) {
		c.Tools, c.Budget = []tool.Tool{&fakeShell{}}, registry.Budget{Tokens: 1000, WallClock: time.Minute}
	})
	if res := f.run(t, "coord", "count"); res.Status != trace.StatusOK || res.Result != "all counted" {
		t.Errorf("run: %+v", res)
	}
}

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

// flatPrice prices every model at one dollar per thousand tokens.
type flatPrice struct{}

func (flatPrice) Cost(spec string, in, out, cached int64) (float64, bool) {
	return float64(in+out) / 1000, true
}

func TestAUSDBudgetCountsPricedCalls(t *testing.T) {
	f := setup(t, fruitAgents, fruitScript, func(c *Config) {
		c.Tools, c.Prices, c.Budget = []tool.Tool{&fakeShell{}}, flatPrice{}, registry.Budget{USD: 0.10}
	})
	res := f.run(t, "coord", "count the fruit")
	if res.Status != trace.StatusLimit || !strings.HasPrefix(res.Result, "The run stopped at its budget: $0.1400 used of a budget of $0.10.") ||
		!strings.Contains(res.Result, "Used: 140 tokens, $0.1400,") {
		t.Errorf("run: %+v", res)
	}
	if got := f.sink.runs[res.RunID].CostUSD; got < 0.1399 || got > 0.1401 {
		t.Errorf("run cost %v, want 0.14", got)
	}
}
