package permissions

import (
	"strings"
	"testing"
)

func TestSkillsAreIntersectedDownTheChain(t *testing.T) {
	for _, tc := range []struct {
		name  string
		chain []Level
		skill string
		want  bool
		why   string
	}{
		{"no level restricts skills", []Level{{Name: GlobalLevel}, {Name: "a"}}, "pdf", true, "allowed"},
		{"a plugin's name allows its prefixed skills", []Level{{Name: GlobalLevel}, {Name: "a", Rules: Rules{Allow: []string{"docs"}}}}, "docs.pdf", true, `agent "a" allows "docs"`},
		{"the global deny list wins", []Level{{Name: GlobalLevel, Rules: Rules{Deny: []string{"pdf"}}}, {Name: "a", Rules: Rules{Allow: []string{"*"}}}}, "pdf", false, `denied by global: deny pattern "pdf"`},
		{"a parent's allow list limits its child", []Level{{Name: GlobalLevel}, {Name: "parent", Rules: Rules{Allow: []string{"xlsx"}}}, {Name: "child", Rules: Rules{Allow: []string{"pdf", "xlsx"}}}}, "pdf", false, `denied by agent "parent": no allow pattern matches`},
		{"an empty allow list allows no skill", []Level{{Name: GlobalLevel}, {Name: "a", Rules: Rules{Allow: []string{}}}}, "pdf", false, "its allow list is empty"},
		{"ask patterns do not apply to skills", []Level{{Name: GlobalLevel, Rules: Rules{Ask: []string{"*"}}}, {Name: "a"}}, "pdf", true, "allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Skill(tc.chain, tc.skill)
			if d.Allowed != tc.want || d.Ask || !strings.Contains(d.Reason, tc.why) {
				t.Fatalf("%+v; want allowed=%v because %q", d, tc.want, tc.why)
			}
		})
	}
}

func TestASkillsAllowedToolsNarrowNeverWiden(t *testing.T) {
	chain := []Level{{Name: GlobalLevel, Rules: Rules{Allow: []string{"*"}}}, {Name: "a", Rules: Rules{Allow: []string{"filesystem", "web.fetch"}}}}
	l, ok := SkillLevel("pdf", []string{"filesystem.read_file", "shell.run"})
	if !ok {
		t.Fatal("a skill with allowed-tools adds a level")
	}
	chain = append(chain, l)
	for tool, want := range map[string]bool{"filesystem.read_file": true, "filesystem.write_file": false, "web.fetch": false, "shell.run": false} {
		d := Tool(chain, tool)
		if d.Allowed != want {
			t.Errorf("%s: %+v; want allowed=%v", tool, d, want)
		}
		if tool == "filesystem.write_file" && !strings.Contains(d.Reason, `skill "pdf"'s allowed-tools`) {
			t.Errorf("reason %q names no skill", d.Reason)
		}
	}
	if _, ok := SkillLevel("plain", nil); ok {
		t.Error("a skill without allowed-tools must not restrict")
	}
}
