package permissions_test

import (
	"strings"
	"testing"

	"github.com/agentry/agentry/permissions"
)

func TestAskVerdict(t *testing.T) {
	global := func(r permissions.Rules) permissions.Level {
		return permissions.Level{Name: permissions.GlobalLevel, Rules: r}
	}
	agent := func(r permissions.Rules) permissions.Level { return permissions.Level{Name: "coder", Rules: r} }
	tests := []struct {
		name           string
		chain          []permissions.Level
		tool           string
		allowed, ask   bool
		level, pattern string
		reasonHas      string
	}{
		{"an ask pattern in the agent makes an allowed tool ask",
			[]permissions.Level{global(permissions.Rules{Allow: []string{"*"}}), agent(permissions.Rules{Ask: []string{"shell.run"}})},
			"shell.run", true, true, "coder", "shell.run", `needs approval for each call: agent "coder" ask pattern "shell.run"`},
		{"a global ask applies under every agent",
			[]permissions.Level{global(permissions.Rules{Allow: []string{"*"}, Ask: []string{"filesystem.write_*"}}), agent(permissions.Rules{})},
			"filesystem.write_file", true, true, "global", "filesystem.write_*", "global ask pattern"},
		{"deny beats ask at the same level",
			[]permissions.Level{agent(permissions.Rules{Deny: []string{"shell"}, Ask: []string{"shell.run"}})},
			"shell.run", false, false, "coder", "shell", "denied by"},
		{"deny at a deeper level beats ask at a higher one",
			[]permissions.Level{global(permissions.Rules{Ask: []string{"shell.run"}}), agent(permissions.Rules{Deny: []string{"shell.run"}})},
			"shell.run", false, false, "coder", "shell.run", "denied by"},
		{"ask never widens: a tool only an ask pattern names stays out",
			[]permissions.Level{agent(permissions.Rules{Allow: []string{"filesystem"}, Ask: []string{"shell.run"}})},
			"shell.run", false, false, "coder", "", "no allow pattern matches"},
		{"a tool no ask pattern matches is simply allowed",
			[]permissions.Level{agent(permissions.Rules{Ask: []string{"shell.run"}})},
			"web.fetch", true, false, "", "", "allowed:"},
		{"an ask pattern with an argument part does not ask for the tool as a whole",
			[]permissions.Level{agent(permissions.Rules{Ask: []string{"shell.run(git push *)"}})},
			"shell.run", true, false, "", "", "allowed:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := permissions.Tool(tc.chain, tc.tool)
			if d.Allowed != tc.allowed || d.Ask != tc.ask || d.Level != tc.level || d.Pattern != tc.pattern || !strings.Contains(d.Reason, tc.reasonHas) {
				t.Errorf("Tool = %+v\nwant allowed=%v ask=%v level=%q pattern=%q reason containing %q", d, tc.allowed, tc.ask, tc.level, tc.pattern, tc.reasonHas)
			}
		})
	}
}

func TestCallAsksForMatchingCommandsOnly(t *testing.T) {
	chain := []permissions.Level{
		{Name: permissions.GlobalLevel, Rules: permissions.Rules{Allow: []string{"*"}}},
		{Name: "ops", Rules: permissions.Rules{Ask: []string{"shell.run(git push *)", "shell.run(rm *)"}}},
	}
	tests := []struct {
		command string
		ask     bool
		why     string
	}{
		{"git status", false, ""},
		{"git push origin main", true, `ask pattern "shell.run(git push *)" matches "git push origin main"`},
		{"git add . && git push", true, `matches "git push"`},
		{"/bin/rm -rf build", true, `ask pattern "shell.run(rm *)"`},
		{"echo $(git push)", true, "cannot be checked"},
	}
	for _, tc := range tests {
		t.Run(tc.command, func(t *testing.T) {
			d, ask := permissions.Call(chain, "shell.run", tc.command, true)
			if ask != tc.ask || (ask && (!d.Ask || !d.Allowed || d.Level != "ops" || !strings.Contains(d.Reason, tc.why))) {
				t.Errorf("Call(%q) = %+v, %v; want ask %v with %q", tc.command, d, ask, tc.ask, tc.why)
			}
		})
	}
	if _, ask := permissions.Call(chain, "shell.run", "", false); ask {
		t.Error("a call without its command asked through a command pattern")
	}
	if !permissions.HasAsk(chain) || permissions.HasAsk(chain[:1]) {
		t.Error("HasAsk does not see which chains have ask patterns")
	}
}

func TestDelegationTargetsAsk(t *testing.T) {
	pm := permissions.Agent{Name: "pm", Enabled: true, Subagents: permissions.Rules{Allow: []string{"*"}, Ask: []string{"deploy*"}}}
	lead := permissions.Agent{Name: "lead", Enabled: true, Nested: true, Subagents: permissions.Rules{Allow: []string{"*"}, Deny: []string{"dropper"}}}
	deployer := permissions.Agent{Name: "deployer", Enabled: true}
	dropper := permissions.Agent{Name: "dropper", Enabled: true}
	writer := permissions.Agent{Name: "writer", Enabled: true}
	d := permissions.Delegation{Ask: []string{"writer"}}
	tests := []struct {
		name         string
		branch       []permissions.Agent
		target       permissions.Agent
		allowed, ask bool
		reasonHas    string
	}{
		{"the delegator's own ask pattern asks", []permissions.Agent{pm}, deployer, true, true, `agent "pm" subagents ask pattern "deploy*"`},
		{"an ancestor's ask pattern is inherited", []permissions.Agent{pm, lead}, deployer, true, true, `agent "pm" inherited subagents ask pattern`},
		{"the global ask list asks", []permissions.Agent{lead}, writer, true, true, `global subagents ask pattern "writer"`},
		{"a deny beats an ask", []permissions.Agent{pm, lead}, dropper, false, false, "denied by"},
		{"a target nothing asks for is allowed", []permissions.Agent{lead}, deployer, true, false, "allowed by"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := d.Target(tc.branch, tc.target)
			if got.Allowed != tc.allowed || got.Ask != tc.ask || !strings.Contains(got.Reason, tc.reasonHas) {
				t.Errorf("Target = %+v; want allowed=%v ask=%v reason containing %q", got, tc.allowed, tc.ask, tc.reasonHas)
			}
		})
	}
}

// BenchmarkAskCheck measures what the runtime's ask check adds to one tool
// call: nothing to do for a chain without ask patterns, a scan of
// non-matching patterns, and command patterns that split the command line.
func BenchmarkAskCheck(b *testing.B) {
	chain := benchChain()
	cases := []struct {
		name string
		mod  func([]permissions.Level)
		cmd  string
	}{
		{"no-ask-rules", func([]permissions.Level) {}, ""},
		{"tool-rules-no-match", func(c []permissions.Level) {
			c[0].Rules.Ask = []string{"k8s.write_*", "postgres.write_*", "slack.write_*"}
			c[2].Rules.Ask = []string{"github.write_*", "jira.write_*"}
		}, ""},
		{"command-rules", func(c []permissions.Level) {
			c[0].Rules.Ask = []string{"shell.run(git push *)", "shell.run(rm *)"}
			c[3].Rules.Ask = []string{"shell.run(kubectl *)"}
		}, "go test ./... && git status"},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			c := benchChain()
			copy(c, chain)
			tc.mod(c)
			name, hasCmd := "github.read_02", false
			if tc.cmd != "" {
				name, hasCmd = "shell.run", true
			}
			b.ReportAllocs()
			for b.Loop() {
				if permissions.HasAsk(c) {
					permissions.Call(c, name, tc.cmd, hasCmd)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/call")
		})
	}
}
