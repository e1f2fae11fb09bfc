package agents

import (
	"testing"

	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
)

func TestColumnsPutCallersBeforeTheirTargetsEvenOnACycle(t *testing.T) {
	snap := snapshotOf(map[string]string{
		"a.md": "---\nname: a\ndescription: x\nsubagents: {allow: [b], nested: true}\n---\n",
		"b.md": "---\nname: b\ndescription: x\nsubagents: {allow: [a], nested: true}\n---\n",
		"c.md": "---\nname: c\ndescription: x\nsubagents: {allow: [a]}\n---\n",
	})
	v := graphView(snap, permissions.Delegation{})
	x := map[string]int{}
	for _, n := range v.Nodes {
		x[n.Name] = n.X
	}
	if !(x["c"] < x["a"] && x["a"] < x["b"]) {
		t.Errorf("columns c=%d a=%d b=%d, want c < a < b", x["c"], x["a"], x["b"])
	}
}

func TestColumnsPutATargetAfterEveryCallerOnALongerPath(t *testing.T) {
	snap := snapshotOf(map[string]string{
		"lead.md":  "---\nname: lead\ndescription: x\nsubagents: {allow: [coord, leaf], nested: true}\n---\n",
		"coord.md": "---\nname: coord\ndescription: x\nsubagents: {allow: [leaf], nested: true}\n---\n",
		"leaf.md":  "---\nname: leaf\ndescription: x\n---\n",
	})
	v := graphView(snap, permissions.Delegation{})
	x := map[string]int{}
	for _, n := range v.Nodes {
		x[n.Name] = n.X
	}
	if !(x["lead"] < x["coord"] && x["coord"] < x["leaf"]) {
		t.Errorf("columns lead=%d coord=%d leaf=%d, want leaf after coord, which calls it", x["lead"], x["coord"], x["leaf"])
	}
}

// snapshotOf is a registry snapshot of files (path → content).
func snapshotOf(files map[string]string) *registry.Snapshot {
	var changes []registry.Change
	for p, s := range files {
		changes = append(changes, registry.Change{Path: p, Data: []byte(s)})
	}
	return registry.Empty(registry.Options{}).Apply(changes...)
}
