package registry

import (
	"slices"
	"strings"
	"testing"
)

func TestAgentSkillsKeyIsAPermissionAndClaudeCodesListPreloads(t *testing.T) {
	for _, tc := range []struct {
		name, fm       string
		allow, deny    []string
		preload        []string
		wantProblemMsg string
	}{
		{"Claude Code's list allows and preloads", "skills:\n  - pdf\n  - docs:xlsx\n", []string{"pdf", "docs.xlsx"}, nil, []string{"pdf", "docs.xlsx"}, ""},
		{"a comma string is a list", "skills: pdf, xlsx\n", []string{"pdf", "xlsx"}, nil, []string{"pdf", "xlsx"}, ""},
		{"agentry's mapping only permits", "skills:\n  allow: [\"docs\", \"pdf-*\"]\n  deny: [docs.secret]\n", []string{"docs", "pdf-*"}, []string{"docs.secret"}, nil, ""},
		{"an empty list allows no skill", "skills: []\n", []string{}, nil, nil, ""},
		{"a typo of skills is an error", "skill: [pdf]\n", nil, nil, nil, `did you mean "skills"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse("a.md", []byte("---\nname: a\ndescription: d\n"+tc.fm+"---\nbody\n"))
			if err != nil {
				t.Fatal(err)
			}
			a, probs := d.Agent()
			if tc.wantProblemMsg != "" {
				if len(probs) != 1 || !strings.Contains(probs[0].Message, tc.wantProblemMsg) {
					t.Fatalf("problems %v; want %q", probs, tc.wantProblemMsg)
				}
				return
			}
			if len(probs) != 0 {
				t.Fatalf("problems %v", probs)
			}
			if !slices.Equal(a.Skills.Allow, tc.allow) || (a.Skills.Allow == nil) != (tc.allow == nil) || !slices.Equal(a.Skills.Deny, tc.deny) || !slices.Equal(a.Preload, tc.preload) {
				t.Errorf("skills %+v preload %v; want allow %v deny %v preload %v", a.Skills, a.Preload, tc.allow, tc.deny, tc.preload)
			}
		})
	}
}

func TestPluginAgentPathNamesThePlugin(t *testing.T) {
	if p, ok := PluginAgentPath("docs/agents/writer.md"); !ok || p != "docs" {
		t.Errorf("PluginAgentPath: %q %v", p, ok)
	}
}
