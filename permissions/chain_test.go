package permissions_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentry/agentry/permissions"
)

// builtin is the tool catalogue the examples run against.
var builtin = []string{
	"filesystem.edit_file", "filesystem.glob", "filesystem.grep", "filesystem.list_dir",
	"filesystem.read_file", "filesystem.write_file", "web.fetch",
}

// agent is a shorthand for an agent's tool level.
func agent(name string, allow, deny []string) permissions.Level {
	return permissions.Level{Name: name, Rules: permissions.Rules{Allow: allow, Deny: deny}}
}

// all is the global default of agentry.yaml: allow everything.
var all = permissions.Rules{Allow: []string{"*"}}

func TestTool(t *testing.T) {
	tests := []struct {
		name   string
		global permissions.Rules
		chain  []permissions.Level // ancestors then the agent
		tool   string
		want   bool
		level  string // the level the Decision names
		why    string // a fragment of the Reason
	}{
		{"a tool every level allows is allowed, quoting each level", all,
			[]permissions.Level{agent("coder", []string{"filesystem"}, nil)}, "filesystem.grep",
			true, "coder", `allowed: global allows "*", agent "coder" allows "filesystem"`},
		{"an agent without an allow list inherits the global set", all,
			[]permissions.Level{agent("coder", nil, nil)}, "web.fetch",
			true, permissions.GlobalLevel, `agent "coder" has no allow list`},
		{"an agent with an empty allow list has no tools", all,
			[]permissions.Level{agent("coder", []string{}, nil)}, "web.fetch",
			false, "coder", "its allow list is empty"},
		{"a global deny beats an agent's exact allow", permissions.Rules{Allow: []string{"*"}, Deny: []string{"web"}},
			[]permissions.Level{agent("coder", []string{"web.fetch"}, nil)}, "web.fetch",
			false, permissions.GlobalLevel, `denied by global: deny pattern "web"`},
		{"a global allow list limits every agent", permissions.Rules{Allow: []string{"filesystem.read_*"}},
			[]permissions.Level{agent("coder", nil, nil)}, "filesystem.write_file",
			false, permissions.GlobalLevel, "no allow pattern matches"},
		{"a parent's deny reaches its child", all,
			[]permissions.Level{agent("lead", nil, []string{"filesystem.write_*"}), agent("coder", []string{"filesystem"}, nil)}, "filesystem.write_file",
			false, "lead", `denied by agent "lead": deny pattern "filesystem.write_*"`},
		{"a child cannot regain a tool its parent's allow list lacks", all,
			[]permissions.Level{agent("lead", []string{"web"}, nil), agent("coder", []string{"filesystem", "web"}, nil)}, "filesystem.grep",
			false, "lead", "no allow pattern matches"},
		{"the first denying level is named when several deny", permissions.Rules{Deny: []string{"web.fetch"}},
			[]permissions.Level{agent("lead", nil, []string{"web"}), agent("coder", []string{}, nil)}, "web.fetch",
			false, permissions.GlobalLevel, `denied by global`},
		{"the child's own deny applies last", all,
			[]permissions.Level{agent("lead", []string{"*"}, nil), agent("coder", []string{"filesystem"}, []string{"filesystem.edit_file"})}, "filesystem.edit_file",
			false, "coder", `deny pattern "filesystem.edit_file"`},
		{"a three-level chain allows what all three share", all,
			[]permissions.Level{agent("pm", []string{"filesystem", "web"}, nil), agent("lead", []string{"filesystem.read_*", "web"}, nil), agent("coder", []string{"filesystem"}, nil)}, "filesystem.read_file",
			true, "lead", `agent "lead" allows "filesystem.read_*"`},
		{"the most specific pattern of the chain is the one named", all,
			[]permissions.Level{agent("lead", []string{"web.fetch"}, nil), agent("coder", []string{"web"}, nil)}, "web.fetch",
			true, "lead", `agent "lead" allows "web.fetch", agent "coder" allows "web"`},
		{"on equal specificity the deeper level is named", all,
			[]permissions.Level{agent("lead", []string{"web"}, nil), agent("coder", []string{"web"}, nil)}, "web.fetch",
			true, "coder", `agent "coder" allows "web"`},
		{"an unrestricted chain names no level", permissions.Rules{},
			[]permissions.Level{agent("coder", nil, nil)}, "web.fetch",
			true, "", `allowed: global has no allow list, agent "coder" has no allow list`},
		{"an MCP tool is decided by its server group", all,
			[]permissions.Level{agent("graph", []string{"neo4j"}, nil)}, "neo4j.query",
			true, "graph", `agent "graph" allows "neo4j"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chain := append([]permissions.Level{{Name: permissions.GlobalLevel, Rules: tt.global}}, tt.chain...)
			got := permissions.Tool(chain, tt.tool)
			if got.Allowed != tt.want || got.Level != tt.level || got.Subject != tt.tool {
				t.Errorf("Tool(%s) = %+v, want allowed=%v level=%q", tt.tool, got, tt.want, tt.level)
			}
			if !strings.Contains(got.Reason, tt.why) {
				t.Errorf("reason %q does not contain %q", got.Reason, tt.why)
			}
			eff := effective(chain, []string{tt.tool})
			if (len(eff) == 1) != tt.want {
				t.Errorf("Effective = %v, disagrees with Tool's allowed=%v", eff, tt.want)
			}
		})
	}
}

func TestToolWithoutLevelsAllows(t *testing.T) {
	got := permissions.Tool(nil, "web.fetch")
	if !got.Allowed || got.Level != "" || got.Reason == "" {
		t.Errorf("Tool(nil) = %+v, want allowed with a reason and no level", got)
	}
}

func TestToolsAreSortedUniqueAndAgreeWithEffective(t *testing.T) {
	chain := []permissions.Level{
		{Name: permissions.GlobalLevel, Rules: all},
		agent("lead", []string{"filesystem", "web"}, []string{"filesystem.write_*"}),
		agent("coder", []string{"filesystem.*"}, []string{"filesystem.edit_file"}),
	}
	known := []string{"web.fetch", "filesystem.write_file", "filesystem.grep", "filesystem.edit_file", "filesystem.grep", "filesystem.read_file"}
	decisions := permissions.Tools(chain, known)
	var names, allowed []string
	for _, d := range decisions {
		names = append(names, d.Subject)
		if d.Allowed {
			allowed = append(allowed, d.Subject)
		}
		if d.Reason == "" {
			t.Errorf("decision for %s has no reason", d.Subject)
		}
	}
	wantNames := []string{"filesystem.edit_file", "filesystem.grep", "filesystem.read_file", "filesystem.write_file", "web.fetch"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("Tools names = %v, want %v", names, wantNames)
	}
	wantAllowed := []string{"filesystem.grep", "filesystem.read_file"}
	if !slices.Equal(allowed, wantAllowed) {
		t.Errorf("Tools allowed = %v, want %v", allowed, wantAllowed)
	}
	if eff := effective(chain, known); !slices.Equal(eff, wantAllowed) {
		t.Errorf("Effective = %v, want %v", eff, wantAllowed)
	}
}

func TestEffectiveOfAnEmptyAllowListIsEmptyNotNil(t *testing.T) {
	chain := []permissions.Level{{Name: permissions.GlobalLevel, Rules: all}, agent("quiet", []string{}, nil)}
	got := effective(chain, builtin)
	if got == nil || len(got) != 0 {
		t.Errorf("Effective = %#v, want an empty, non-nil list", got)
	}
}

func TestEffectiveOfAllowListOfEmptyPatternsIsEmpty(t *testing.T) {
	chain := []permissions.Level{agent("odd", []string{""}, nil)}
	if got := effective(chain, builtin); len(got) != 0 {
		t.Errorf("Effective = %v, want nothing: an empty pattern matches nothing", got)
	}
}

// effective is the names Tools allows, sorted: what the runtime offers a
// model (it decides with reasons, which it records on the span).
func effective(chain []permissions.Level, known []string) []string {
	out := []string{}
	for _, d := range permissions.Tools(chain, known) {
		if d.Allowed {
			out = append(out, d.Subject)
		}
	}
	return out
}
