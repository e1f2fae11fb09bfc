package permissions_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentry/agentry/permissions"
)

// delegator builds an enabled agent with subagents rules.
func delegator(name string, allow, deny []string, nested bool) permissions.Agent {
	return permissions.Agent{Name: name, Subagents: permissions.Rules{Allow: allow, Deny: deny}, Nested: nested, Enabled: true}
}

// limited is a delegator "cc" that allows every sub-agent, narrowed by
// what its tool lists say (a Claude Code file's Task and Agent(a, b)).
func limited(l permissions.ToolLimit) permissions.Agent {
	a := delegator("cc", []string{"*"}, nil, false)
	a.ToolLimit = l
	return a
}

// leaf is an enabled agent that names no sub-agents.
func leaf(name string) permissions.Agent {
	return permissions.Agent{Name: name, Enabled: true}
}

func TestMayDelegate(t *testing.T) {
	tests := []struct {
		name   string
		policy permissions.Delegation
		branch []permissions.Agent
		want   bool
		level  string
		why    string
	}{
		{"a root may delegate", permissions.Delegation{},
			[]permissions.Agent{leaf("coordinator")}, true, "coordinator", "is the root of the run"},
		{"a sub-agent without nesting may not delegate", permissions.Delegation{},
			[]permissions.Agent{delegator("pm", []string{"*"}, nil, false), delegator("coordinator", []string{"*"}, nil, false)},
			false, "coordinator", "does not set subagents.nested: true"},
		{"a sub-agent that opted into nesting may delegate", permissions.Delegation{},
			[]permissions.Agent{delegator("pm", []string{"*"}, nil, false), delegator("coordinator", []string{"*"}, nil, true)},
			true, "coordinator", "a child runs at depth 2 of max_depth 3"},
		{"a tool deny list naming Task refuses delegating at all", permissions.Delegation{},
			[]permissions.Agent{limited(permissions.ToolLimit{All: true})}, false, "cc", "its tool deny list names the delegation tool"},
		{"an allow list naming no Task refuses delegating at all", permissions.Delegation{},
			[]permissions.Agent{limited(permissions.ToolLimit{Refused: "its tools list names no Task or Agent"})}, false, "cc", "its tools list names no Task or Agent, so it may not delegate"},
		{"the default max depth allows a child at depth 3", permissions.Delegation{},
			[]permissions.Agent{leaf("a"), delegator("b", nil, nil, true), delegator("c", nil, nil, true)},
			true, "c", "depth 3 of max_depth 3"},
		{"the default max depth stops a child at depth 4", permissions.Delegation{},
			[]permissions.Agent{leaf("a"), delegator("b", nil, nil, true), delegator("c", nil, nil, true), delegator("d", nil, nil, true)},
			false, permissions.GlobalLevel, "depth 4, beyond max_depth 3"},
		{"a max depth of 1 lets only the root delegate", permissions.Delegation{MaxDepth: 1},
			[]permissions.Agent{leaf("a"), delegator("b", nil, nil, true)},
			false, permissions.GlobalLevel, "beyond max_depth 1"},
		{"a larger max depth allows deeper branches", permissions.Delegation{MaxDepth: 5},
			[]permissions.Agent{leaf("a"), delegator("b", nil, nil, true), delegator("c", nil, nil, true), delegator("d", nil, nil, true)},
			true, "d", "depth 4 of max_depth 5"},
		{"an empty branch may not delegate", permissions.Delegation{}, nil, false, "", "no agent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.policy.MayDelegate(tt.branch)
			if got.Allowed != tt.want || got.Level != tt.level || got.Subject != permissions.DelegateTool {
				t.Errorf("MayDelegate = %+v, want allowed=%v level=%q", got, tt.want, tt.level)
			}
			if !strings.Contains(got.Reason, tt.why) {
				t.Errorf("reason %q does not contain %q", got.Reason, tt.why)
			}
		})
	}
}

func TestTarget(t *testing.T) {
	coordinator := delegator("research-coordinator", []string{"data-analyst", "web-researcher", "citation-checker"}, []string{"code-helper"}, false)
	tests := []struct {
		name    string
		policy  permissions.Delegation
		branch  []permissions.Agent
		target  permissions.Agent
		want    bool
		level   string
		pattern string
		why     string
	}{
		{"an allow list entry allows that agent", permissions.Delegation{},
			[]permissions.Agent{coordinator}, leaf("data-analyst"),
			true, "research-coordinator", "data-analyst", `allowed by agent "research-coordinator": subagents allow pattern "data-analyst"`},
		{"an agent outside the allow list is denied", permissions.Delegation{},
			[]permissions.Agent{coordinator}, leaf("project-manager"),
			false, "research-coordinator", "", "no subagents allow pattern matches"},
		{"a deny entry beats a star allow", permissions.Delegation{},
			[]permissions.Agent{delegator("lead", []string{"*"}, []string{"code-helper"}, false)}, leaf("code-helper"),
			false, "lead", "code-helper", `subagents deny pattern "code-helper"`},
		{"an absent allow list names no sub-agents", permissions.Delegation{},
			[]permissions.Agent{leaf("reviewer")}, leaf("linter"),
			false, "reviewer", "", "delegation to named agents is opt-in"},
		{"an absent allow list still allows general-purpose", permissions.Delegation{},
			[]permissions.Agent{leaf("reviewer")}, leaf(permissions.GeneralPurpose),
			true, "reviewer", "", "general-purpose is built in"},
		{"an allow list that omits general-purpose still allows it", permissions.Delegation{},
			[]permissions.Agent{coordinator}, leaf(permissions.GeneralPurpose),
			true, "research-coordinator", "", "does not deny it"},
		{"general-purpose is allowed even with a zero Enabled field", permissions.Delegation{},
			[]permissions.Agent{coordinator}, permissions.Agent{Name: permissions.GeneralPurpose},
			true, "research-coordinator", "", "general-purpose is built in"},
		{"a tool deny list naming Task refuses every target, general-purpose too", permissions.Delegation{},
			[]permissions.Agent{limited(permissions.ToolLimit{All: true})}, leaf(permissions.GeneralPurpose),
			false, "cc", "", "its tool deny list names the delegation tool"},
		{"a VS Code allow list naming no agent refuses every target, general-purpose too", permissions.Delegation{},
			[]permissions.Agent{limited(permissions.ToolLimit{Refused: "its tools list names no agent or runSubagent"})}, leaf(permissions.GeneralPurpose),
			false, "cc", "", "its tools list names no agent or runSubagent"},
		{"an allow list naming no Task refuses a target subagents allows", permissions.Delegation{},
			[]permissions.Agent{limited(permissions.ToolLimit{Refused: "its tools list names no Task or Agent"})}, leaf("b"),
			false, "cc", "", "its tools list names no Task or Agent"},
		{"a tool deny list's Agent(b) refuses b", permissions.Delegation{},
			[]permissions.Agent{limited(permissions.ToolLimit{Deny: []string{"b"}})}, leaf("b"),
			false, "cc", "b", "its tool deny list names Agent(b)"},
		{"a tool deny list's Agent(b) leaves c to the subagents rules", permissions.Delegation{},
			[]permissions.Agent{limited(permissions.ToolLimit{Deny: []string{"b"}})}, leaf("c"),
			true, "cc", "*", `subagents allow pattern "*"`},
		{"tools' Agent(b, c) limits the targets to b and c", permissions.Delegation{},
			[]permissions.Agent{limited(permissions.ToolLimit{Only: []string{"b", "c"}})}, leaf("d"),
			false, "cc", "", "its tools limit delegation to Agent(b, c)"},
		{"tools' Agent(b) leaves out general-purpose", permissions.Delegation{},
			[]permissions.Agent{limited(permissions.ToolLimit{Only: []string{"b"}})}, leaf(permissions.GeneralPurpose),
			false, "cc", "", "its tools limit delegation to Agent(b)"},
		{"tools' Agent(b) does not widen: b still needs the subagents rules", permissions.Delegation{},
			[]permissions.Agent{{Name: "cc", Enabled: true, ToolLimit: permissions.ToolLimit{Only: []string{"b"}}}}, leaf("b"),
			false, "cc", "", "delegation to named agents is opt-in"},
		{"tools' Agent(b) with the subagents rules allowing b", permissions.Delegation{},
			[]permissions.Agent{limited(permissions.ToolLimit{Only: []string{"b"}})}, leaf("b"),
			true, "cc", "*", `subagents allow pattern "*"`},
		{"denying general-purpose removes it", permissions.Delegation{},
			[]permissions.Agent{delegator("lead", nil, []string{permissions.GeneralPurpose}, false)}, leaf(permissions.GeneralPurpose),
			false, "lead", permissions.GeneralPurpose, "subagents deny pattern"},
		{"a star deny removes general-purpose too", permissions.Delegation{},
			[]permissions.Agent{delegator("lead", []string{"*"}, []string{"*"}, false)}, leaf(permissions.GeneralPurpose),
			false, "lead", "*", "subagents deny pattern"},
		{"a star allow allows any agent", permissions.Delegation{},
			[]permissions.Agent{delegator("lead", []string{"*"}, nil, false)}, leaf("linter"),
			true, "lead", "*", `subagents allow pattern "*"`},
		{"a glob allow matches agent names", permissions.Delegation{},
			[]permissions.Agent{delegator("lead", []string{"data-*"}, nil, false)}, leaf("data-analyst"),
			true, "lead", "data-*", `subagents allow pattern "data-*"`},
		{"a sub-agent without nesting has no targets at all", permissions.Delegation{},
			[]permissions.Agent{delegator("pm", []string{"*"}, nil, true), coordinator}, leaf("data-analyst"),
			false, "research-coordinator", "", "does not set subagents.nested: true"},
		{"a nested sub-agent delegates by its own allow list", permissions.Delegation{},
			[]permissions.Agent{delegator("pm", []string{"research-coordinator"}, nil, true), delegator("research-coordinator", []string{"data-analyst"}, nil, true)}, leaf("data-analyst"),
			true, "research-coordinator", "data-analyst", "subagents allow pattern"},
		{"an ancestor's deny is inherited", permissions.Delegation{},
			[]permissions.Agent{delegator("pm", []string{"*"}, []string{"code-helper"}, true), delegator("lead", []string{"*"}, nil, true)}, leaf("code-helper"),
			false, "pm", "code-helper", `denied by agent "pm": inherited subagents deny pattern "code-helper"`},
		{"an ancestor's allow list is not inherited", permissions.Delegation{},
			[]permissions.Agent{delegator("pm", []string{"lead"}, nil, true), delegator("lead", []string{"linter"}, nil, true)}, leaf("linter"),
			true, "lead", "linter", "subagents allow pattern"},
		{"an ancestor's deny of general-purpose is inherited", permissions.Delegation{},
			[]permissions.Agent{delegator("pm", []string{"*"}, []string{"general-*"}, true), delegator("lead", nil, nil, true)}, leaf(permissions.GeneralPurpose),
			false, "pm", "general-*", "inherited subagents deny pattern"},
		{"an agent with enabled false is denied", permissions.Delegation{},
			[]permissions.Agent{coordinator}, permissions.Agent{Name: "data-analyst", Enabled: false},
			false, "data-analyst", "", "enabled: false"},
		{"an agent only a person may start is no sub-agent, even where a star allows it", permissions.Delegation{},
			[]permissions.Agent{delegator("lead", []string{"*"}, nil, false)}, permissions.Agent{Name: "reviewer", Enabled: true, NotSubagent: "disable-model-invocation: true"},
			false, "reviewer", "", `denied by agent "reviewer": it may not run as a sub-agent (disable-model-invocation: true) unless its parent names it`},
		{"an agent only a person may start runs for a parent that names it", permissions.Delegation{},
			[]permissions.Agent{delegator("lead", []string{"reviewer"}, nil, false)}, permissions.Agent{Name: "reviewer", Enabled: true, NotSubagent: "disable-model-invocation: true"},
			true, "lead", "reviewer", `allowed by agent "lead": subagents allow pattern "reviewer"`},
		{"an agent in the global disabled list is denied", permissions.Delegation{Disabled: []string{"web-researcher"}},
			[]permissions.Agent{coordinator}, leaf("web-researcher"),
			false, permissions.GlobalLevel, "web-researcher", "is disabled (disabled_agents"},
		{"general-purpose can be disabled globally", permissions.Delegation{Disabled: []string{permissions.GeneralPurpose}},
			[]permissions.Agent{coordinator}, leaf(permissions.GeneralPurpose),
			false, permissions.GlobalLevel, permissions.GeneralPurpose, "is disabled"},
		{"an agent may not delegate to itself without nesting", permissions.Delegation{},
			[]permissions.Agent{delegator("lead", []string{"*"}, nil, false)}, delegator("lead", []string{"*"}, nil, false),
			false, "lead", "", "already on this branch (lead)"},
		{"an agent that opted into nesting may delegate to itself", permissions.Delegation{},
			[]permissions.Agent{delegator("lead", []string{"*"}, nil, true)}, delegator("lead", []string{"*"}, nil, true),
			true, "lead", "*", "subagents allow pattern"},
		{"an ancestor on the branch may not be re-entered without nesting", permissions.Delegation{},
			[]permissions.Agent{delegator("pm", []string{"*"}, nil, false), delegator("lead", []string{"*"}, nil, true)}, delegator("pm", []string{"*"}, nil, false),
			false, "pm", "", "already on this branch (pm → lead)"},
		{"a nested ancestor may be re-entered", permissions.Delegation{},
			[]permissions.Agent{delegator("pm", []string{"*"}, nil, true), delegator("lead", []string{"*"}, nil, true)}, delegator("pm", []string{"*"}, nil, true),
			true, "lead", "*", "subagents allow pattern"},
		{"max depth applies before any target rule", permissions.Delegation{MaxDepth: 2},
			[]permissions.Agent{delegator("a", []string{"*"}, nil, true), delegator("b", []string{"*"}, nil, true), delegator("c", []string{"*"}, nil, true)}, leaf("d"),
			false, permissions.GlobalLevel, "", "beyond max_depth 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.policy.Target(tt.branch, tt.target)
			if got.Allowed != tt.want || got.Level != tt.level || got.Pattern != tt.pattern || got.Subject != tt.target.Name {
				t.Errorf("Target(%s) = %+v, want allowed=%v level=%q pattern=%q", tt.target.Name, got, tt.want, tt.level, tt.pattern)
			}
			if !strings.Contains(got.Reason, tt.why) {
				t.Errorf("reason %q does not contain %q", got.Reason, tt.why)
			}
		})
	}
}

func TestTargetsAddsGeneralPurposeAndSorts(t *testing.T) {
	branch := []permissions.Agent{delegator("research-coordinator", []string{"data-analyst", "web-researcher"}, []string{"code-helper"}, false)}
	candidates := []permissions.Agent{leaf("web-researcher"), leaf("code-helper"), leaf("data-analyst"), leaf("data-analyst"), branch[0]}
	got := permissions.Delegation{}.Targets(branch, candidates)
	var names, allowed []string
	for _, d := range got {
		names = append(names, d.Subject)
		if d.Allowed {
			allowed = append(allowed, d.Subject)
		}
	}
	wantNames := []string{"code-helper", "data-analyst", permissions.GeneralPurpose, "research-coordinator", "web-researcher"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("Targets names = %v, want %v", names, wantNames)
	}
	wantAllowed := []string{"data-analyst", permissions.GeneralPurpose, "web-researcher"}
	if !slices.Equal(allowed, wantAllowed) {
		t.Errorf("Targets allowed = %v, want %v", allowed, wantAllowed)
	}
}

func TestTargetsKeepsAGeneralPurposeCandidateOnce(t *testing.T) {
	branch := []permissions.Agent{leaf("lead")}
	got := permissions.Delegation{}.Targets(branch, []permissions.Agent{{Name: permissions.GeneralPurpose, Enabled: true}})
	if len(got) != 1 || got[0].Subject != permissions.GeneralPurpose || !got[0].Allowed {
		t.Errorf("Targets = %+v, want general-purpose once and allowed", got)
	}
}

func TestRunnableExplainsWhyAnAgentMayNotRun(t *testing.T) {
	d := permissions.Delegation{Disabled: []string{"legacy-*"}}
	cases := []struct {
		name  string
		agent permissions.Agent
		want  bool
		why   string
	}{
		{"an enabled agent runs", permissions.Agent{Name: "coord", Enabled: true}, true, "enabled"},
		{"enabled: false stops it", permissions.Agent{Name: "coord"}, false, "enabled: false"},
		{"a global pattern stops it", permissions.Agent{Name: "legacy-bot", Enabled: true}, false, `disabled_agents "legacy-*"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dec := d.Runnable(c.agent)
			if dec.Allowed != c.want || !strings.Contains(dec.Reason, c.why) {
				t.Errorf("Runnable = %+v, want allowed=%v with %q", dec, c.want, c.why)
			}
		})
	}
}
