package registry

import (
	"testing"
	"testing/fstest"

	"github.com/agentry/agentry/permissions"
)

// shell.network is granted at run time only where a level names it exactly
// (permissions.Grant); the explanation must say the same, not what "*"
// would allow for a tool.
func TestExplainGrantsShellNetworkOnlyWhereALevelNamesIt(t *testing.T) {
	known := append(append([]string{}, BuiltinTools...), permissionOnlyTools...)
	s, err := Load(fstest.MapFS{
		"open.md":    agentFile("open"),
		"offline.md": agentFile("offline", "tools: [shell.run]\n"),
		"online.md":  agentFile("online", "tools: [shell.run, shell.network]\n"),
	}, Options{KnownTools: known})
	if err != nil {
		t.Fatal(err)
	}
	global := permissions.Rules{Allow: []string{"*"}}
	for agent, want := range map[string]bool{"open": false, "offline": false, "online": true} {
		e, err := s.Explain(global, permissions.Delegation{}, []string{agent})
		if err != nil {
			t.Fatal(err)
		}
		var got *ToolDecision
		for i := range e.Tools {
			if e.Tools[i].Tool == "shell.network" {
				got = &e.Tools[i]
			}
		}
		if got == nil {
			t.Fatalf("%s: shell.network is not explained: %+v", agent, e.Tools)
		}
		if got.Allowed != want {
			t.Errorf("%s: shell.network allowed = %v (%s), want %v: at run time permissions.Grant decides %v", agent, got.Allowed, got.Reason,
				want, permissions.Grant([]permissions.Level{{Name: "global", Rules: global}, {Name: agent, Rules: s.mustAgent(t, agent).Tools}}, "shell.network").Allowed)
		}
	}
}

func (s *Snapshot) mustAgent(t *testing.T, name string) Agent {
	t.Helper()
	a, ok := s.Agent(name)
	if !ok {
		t.Fatalf("no agent %s", name)
	}
	return a
}
