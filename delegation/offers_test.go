package delegation

import (
	"slices"
	"testing"

	"github.com/agentry/agentry/delegation/tool/filesystem"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
)

// A toolset is shared only by invocations of the same agent on the same
// branch: a dispatched agent of the same name with other tools, or an agent
// whose rules differ only in nil against empty, gets its own.
func TestToolsetsAreSharedOnlyForTheSameAgent(t *testing.T) {
	ws, err := filesystem.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := setup(t, map[string]string{"boss": "subagents:\n  allow: [w]\n", "w": ""}, "boss: [{say: x}]\n",
		func(c *Config) { c.Tools = ws.Tools() })
	rn := &run{rt: f.rt, agents: f.rt.snapshot()}
	boss, _ := rn.agents.Agent("boss")
	root, _ := rn.shape(&child{agent: boss})
	mk := func(rules permissions.Rules) *invocation {
		inv, _ := rn.shape(&child{agent: registry.Agent{Name: "w", Enabled: true, Tools: rules}, parent: root})
		return inv
	}
	read := mk(permissions.Rules{Allow: []string{"filesystem.read_file"}})
	if again := mk(permissions.Rules{Allow: []string{"filesystem.read_file"}}); read.set != again.set {
		t.Error("the same agent on the same branch worked out its toolset again")
	}
	write := mk(permissions.Rules{Allow: []string{"filesystem.write_file"}})
	if read.set == write.set || !slices.Equal(read.set.namesAttr.([]string), []string{"filesystem.read_file"}) ||
		!slices.Equal(write.set.namesAttr.([]string), []string{"filesystem.write_file"}) {
		t.Errorf("tools = %v and %v, want read_file and write_file", read.set.namesAttr.([]string), write.set.namesAttr.([]string))
	}
	if all, none := mk(permissions.Rules{}), mk(permissions.Rules{Allow: []string{}}); all.set == none.set {
		t.Errorf("nil and empty allow lists share a toolset: %v", all.set.namesAttr)
	}
	// An agent whose tool lists alone differ (disallowedTools: Task, a
	// Claude Code list without Task, Agent(a, b)) may call others.
	free, _ := rn.shape(&child{agent: boss})
	for _, limit := range []registry.ToolDelegation{{Denied: true}, {Refused: "its tools list names no Task or Agent"}, {DeniedTargets: []string{"w"}}, {Targets: []string{"x"}}} {
		limited := boss
		limited.Delegation = limit
		inv, _ := rn.shape(&child{agent: limited})
		if inv.set == free.set {
			t.Errorf("boss with tool lists %+v shares the toolset of boss without: it may delegate to %v", limit, inv.offer.byName)
		}
		if d, _ := inv.offer.decision("w"); d.Allowed {
			t.Errorf("boss with tool lists %+v may call w: %s", limit, d.Reason)
		}
	}
	top, _ := rn.shape(&child{agent: registry.Agent{Name: "w", Enabled: true, Tools: permissions.Rules{Allow: []string{"filesystem.read_file"}}}})
	if top.set == read.set || len(top.branch) != 1 || len(read.branch) != 2 {
		t.Errorf("a root w shares the toolset of w under boss: branches %v, %v", top.branch, read.branch)
	}
}
