package permissions_test

import (
	"strings"
	"testing"

	"github.com/agentry/agentry/permissions"
)

func TestRulesDecide(t *testing.T) {
	tests := []struct {
		name        string
		level       string
		rules       permissions.Rules
		tool        string
		wantAllowed bool
		wantPattern string
		why         string // a fragment the Reason must contain
	}{
		{"an absent allow list allows everything", "coder", permissions.Rules{}, "web.fetch",
			true, "", `allowed by agent "coder": it has no allow list`},
		{"an empty allow list allows nothing", "coder", permissions.Rules{Allow: []string{}}, "web.fetch",
			false, "", `denied by agent "coder": its allow list is empty`},
		{"a matching group allows", "coder", permissions.Rules{Allow: []string{"web"}}, "web.fetch",
			true, "web", `allowed by agent "coder": allow pattern "web"`},
		{"an unmatched allow list denies and quotes it", "coder", permissions.Rules{Allow: []string{"web", "neo4j.query"}}, "filesystem.grep",
			false, "", `no allow pattern matches (allow: ["web", "neo4j.query"])`},
		{"deny wins over allow at the same level", "coder", permissions.Rules{Allow: []string{"filesystem"}, Deny: []string{"filesystem.write_*"}}, "filesystem.write_file",
			false, "filesystem.write_*", `denied by agent "coder": deny pattern "filesystem.write_*"`},
		{"deny wins over an exact allow", "coder", permissions.Rules{Allow: []string{"web.fetch"}, Deny: []string{"web"}}, "web.fetch",
			false, "web", `deny pattern "web"`},
		{"deny without allow still denies", "coder", permissions.Rules{Deny: []string{"web"}}, "web.fetch",
			false, "web", `deny pattern "web"`},
		{"deny without allow lets other tools through", "coder", permissions.Rules{Deny: []string{"web"}}, "filesystem.grep",
			true, "", `it has no allow list`},
		{"deny wins over an empty allow list in the reason", "coder", permissions.Rules{Allow: []string{}, Deny: []string{"*"}}, "web.fetch",
			false, "*", `deny pattern "*"`},
		{"the most specific allow pattern is quoted", "coder", permissions.Rules{Allow: []string{"*", "filesystem", "filesystem.read_*", "filesystem.read_file"}}, "filesystem.read_file",
			true, "filesystem.read_file", `allow pattern "filesystem.read_file"`},
		{"a glob is more specific than its group", "coder", permissions.Rules{Allow: []string{"filesystem", "filesystem.read_*"}}, "filesystem.read_file",
			true, "filesystem.read_*", `allow pattern "filesystem.read_*"`},
		{"a group is more specific than a star", "coder", permissions.Rules{Deny: []string{"*", "web"}}, "web.fetch",
			false, "web", `deny pattern "web"`},
		{"the global level is named plainly", permissions.GlobalLevel, permissions.Rules{Deny: []string{"web"}}, "web.fetch",
			false, "web", `denied by global: deny pattern "web"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.rules.Decide(tt.level, tt.tool)
			if got.Allowed != tt.wantAllowed || got.Pattern != tt.wantPattern || got.Level != tt.level || got.Subject != tt.tool {
				t.Errorf("Decide(%q, %q) = %+v, want allowed=%v level=%q pattern=%q",
					tt.level, tt.tool, got, tt.wantAllowed, tt.level, tt.wantPattern)
			}
			if !strings.Contains(got.Reason, tt.why) {
				t.Errorf("reason %q does not contain %q", got.Reason, tt.why)
			}
		})
	}
}
