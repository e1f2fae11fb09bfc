package registry

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestAgentReadsAskListsAndBudget(t *testing.T) {
	src := "---\nname: ops\ndescription: Deploys\ntools:\n  allow: [shell]\n  ask: [shell.run, \"shell.run(git push *)\"]\n" +
		"subagents:\n  allow: [\"*\"]\n  ask: [deployer]\nbudget: {tokens: 200000, usd: 2.50, wall_clock: 15m}\n---\nbody\n"
	d, err := Parse("ops.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	a, probs := d.Agent()
	if len(probs) != 0 {
		t.Fatalf("problems: %v", probs)
	}
	if !slices.Equal(a.Tools.Ask, []string{"shell.run", "shell.run(git push *)"}) || !slices.Equal(a.Subagents.Rules.Ask, []string{"deployer"}) {
		t.Errorf("ask lists = %q, %q", a.Tools.Ask, a.Subagents.Rules.Ask)
	}
	if want := (Budget{Tokens: 200000, USD: 2.5, WallClock: 15 * time.Minute}); a.Budget != want {
		t.Errorf("budget = %+v, want %+v", a.Budget, want)
	}
}

func TestABadBudgetIsReportedAtItsLine(t *testing.T) {
	src := "---\nname: ops\ndescription: Deploys\nbudget:\n  tokens: lots\n  usd: -1\n  wall_clock: soon\n---\nbody\n"
	d, err := Parse("ops.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, probs := d.Agent()
	want := map[int]string{5: "budget.tokens must be a whole number", 6: "budget.usd must be a positive number", 7: "budget.wall_clock must be a positive duration"}
	for _, p := range probs {
		if w, ok := want[p.Line]; ok && strings.Contains(p.Message, w) {
			delete(want, p.Line)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing problems %v in %v", want, probs)
	}
}

// TestAnEditKeepsTheAskList: the editor's form sets tools.allow and
// tools.deny; a file's ask list must survive, or an edit in the browser
// would silently drop a person's approval.
func TestAnEditKeepsTheAskList(t *testing.T) {
	src := "---\nname: ops\ndescription: Deploys\ntools:\n  allow: [shell]\n  ask: [shell.run]\nsubagents:\n  allow: [\"*\"]\n  ask: [deployer]\n---\nbody\n"
	d, err := Parse("ops.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range []struct {
		key   string
		value any
	}{{"tools.allow", []string{"shell", "filesystem"}}, {"tools.deny", []string{"web"}}, {"subagents.allow", []string{"deployer"}}, {"tools.allow", nil}} {
		if err := d.Set(kv.key, kv.value); err != nil {
			t.Fatal(err)
		}
	}
	d2, err := Parse("ops.md", d.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := d2.Agent()
	if !slices.Equal(a.Tools.Ask, []string{"shell.run"}) || !slices.Equal(a.Subagents.Rules.Ask, []string{"deployer"}) {
		t.Errorf("after the edit the ask lists are %q, %q:\n%s", a.Tools.Ask, a.Subagents.Rules.Ask, d.Bytes())
	}
}
