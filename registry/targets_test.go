package registry

import (
	"slices"
	"testing"
	"testing/fstest"

	"github.com/agentry/agentry/permissions"
)

func TestDelegationTargetsAreTheFilesAgentsThenTheRemoteOnesNoFileShadows(t *testing.T) {
	s := mustLoad(t, fstest.MapFS{"b.md": agentFile("b", ""), "a.md": agentFile("a", "")})
	remote := []RemoteTarget{
		{Agent: permissions.Agent{Name: "far", Enabled: true}, Card: "https://far/card"},
		{Agent: permissions.Agent{Name: "a", Enabled: true}, Card: "https://shadowed/card"},
		{Card: "https://unnamed/card"},
	}
	targets, cards := s.DelegationTargets(remote)
	var names []string
	for _, t := range targets {
		names = append(names, t.Name)
	}
	if !slices.Equal(names, []string{"a", "b", "far"}) || len(cards) != 1 || cards["far"] != "https://far/card" {
		t.Errorf("targets %v, cards %v: want a, b, far and far's card alone", names, cards)
	}
	if r, ok := s.Remote(remote, "far"); !ok || r.Card != "https://far/card" {
		t.Errorf("Remote(far) = %+v, %v", r, ok)
	}
	for _, name := range []string{"a", "", "nobody"} {
		if r, ok := s.Remote(remote, name); ok {
			t.Errorf("Remote(%q) = %+v: a file's agent, an unnamed card or no agent is no remote target", name, r)
		}
	}
}
