package registry

import (
	"strings"
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

// VS Code's disable-model-invocation: true, and the older infer: false,
// keep an agent from running as another's sub-agent: a parent that allows
// every agent is still refused it; one that names it in agents: may call
// it, as VS Code lets an explicit entry override the switch.
func TestAnAgentOnlyAPersonStartsIsNoSubagent(t *testing.T) {
	s := mustLoad(t, fstest.MapFS{
		".github/agents/lead.agent.md":     {Data: []byte("---\nname: Lead\ndescription: Leads\ntools: ['agent']\nagents: ['*']\n---\nLead.\n")},
		".github/agents/named.agent.md":    {Data: []byte("---\ndescription: Names one\ntools: ['agent']\nagents: ['reviewer']\n---\nName.\n")},
		".github/agents/reviewer.agent.md": {Data: []byte("---\ndescription: Reviews\ndisable-model-invocation: true\n---\nReview.\n")},
		".github/agents/old.agent.md":      {Data: []byte("---\ndescription: Older\ninfer: false\n---\nOld.\n")},
		".github/agents/helper.agent.md":   {Data: []byte("---\ndescription: Helps\ninfer: true\ndisable-model-invocation: false\n---\nHelp.\n")},
	})
	e, err := s.Explain(permissions.Rules{Allow: []string{"*"}}, permissions.Delegation{}, []string{"lead"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"reviewer": "it may not run as a sub-agent (disable-model-invocation: true) unless its parent names it",
		"old":      "it may not run as a sub-agent (infer: false)",
		"helper":   "",
	}
	for _, d := range e.Subagents {
		why, ok := want[d.Agent]
		if !ok {
			continue
		}
		delete(want, d.Agent)
		if d.Allowed != (why == "") || !strings.Contains(d.Reason, why) {
			t.Errorf("lead → %s: allowed %v (%s); want allowed %v %q", d.Agent, d.Allowed, d.Reason, why == "", why)
		}
	}
	if len(want) > 0 {
		t.Errorf("not decided: %v", want)
	}
	if _, ok := s.Agent("reviewer"); !ok {
		t.Error("the agent still loads: a person may start it")
	}
	e, err = s.Explain(permissions.Rules{Allow: []string{"*"}}, permissions.Delegation{}, []string{"named"})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range e.Subagents {
		if d.Agent == "reviewer" && !d.Allowed {
			t.Errorf("named → reviewer: %s; want allowed, as agents: names it", d.Reason)
		}
	}
	if probs := s.ProblemsFor("named"); len(probs) != 0 {
		t.Errorf("problems of named: %v", probs)
	}
}
