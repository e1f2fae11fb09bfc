package registry

import "testing"

func TestNameOfFollowsTheIdentityRules(t *testing.T) {
	cases := map[string]struct {
		path, data, want string
	}{
		"name: is the id":                  {"x.md", "---\nname: lead\n---\n", "lead"},
		"a display name falls to the file": {"Lead Agent.md", "---\nname: Lead Agent\n---\n", "lead-agent"},
		"a VS Code file is named by file":  {"swe.agent.md", "---\nname: swe-two\n---\n", "swe"},
		"a broken file keeps its name":     {"x.md", "---\nname: lead\ntools: [\n---\n", "lead"},
	}
	for why, c := range cases {
		if got := NameOf(c.path, []byte(c.data)); got != c.want {
			t.Errorf("%s: NameOf = %q, want %q", why, got, c.want)
		}
	}
}
