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
