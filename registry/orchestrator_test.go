package registry

import (
	"strings"
	"testing"
)

func TestSourceDocumentSpellingsAndOrchestratorKeysDecode(t *testing.T) {
	src := "---\nname: a\ndescription: A\ntemperature: 0.3\nmax_tokens: 800\norchestrator: true\n" +
		"sub_agents:\n  allow: [b]\n  context: full_history\n  dispatch: true\n---\n"
	d, err := Parse("a.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	a, probs := d.Agent()
	if len(probs) != 0 {
		t.Fatalf("problems %v, want none", probs)
	}
	if a.Sampling.Temperature == nil || *a.Sampling.Temperature != 0.3 || a.Sampling.MaxTokens != 800 {
		t.Errorf("sampling = %+v, want temperature 0.3 and max_tokens 800", a.Sampling)
	}
	if !a.Orchestrator || !a.Subagents.Dispatch || a.Subagents.Context != ContextFull || len(a.Subagents.Rules.Allow) != 1 {
		t.Errorf("agent = %+v, want an orchestrator dispatching, context full, allow [b]", a)
	}
}

func TestOrchestratorKeysReportBadValues(t *testing.T) {
	tests := []struct{ name, extra, field, msg string }{
		{"a temperature out of range", "temperature: 3\n", "temperature", "between 0 and 2"},
		{"a temperature as text", "temperature: warm\n", "temperature", "must be a number"},
		{"max_tokens of zero", "max_tokens: 0\n", "max_tokens", "at least 1"},
		{"both spellings of subagents", "subagents: [b]\nsub_agents: [c]\n", "sub_agents", "same setting"},
		{"dispatch as text", "subagents: {dispatch: \"yes\"}\n", "subagents.dispatch", "true or false"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse("a.md", []byte("---\nname: a\ndescription: A\n"+tc.extra+"---\n"))
			if err != nil {
				t.Fatal(err)
			}
			_, probs := d.Agent()
			if len(probs) != 1 || probs[0].Field != tc.field || !strings.Contains(probs[0].Message, tc.msg) {
				t.Fatalf("problems %v, want one on %s saying %q", probs, tc.field, tc.msg)
			}
		})
	}
}
