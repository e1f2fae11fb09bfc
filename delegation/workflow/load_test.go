package workflow

import (
	"fmt"

	"github.com/expr-lang/expr"
	"path/filepath"
	"strings"
	"testing"
)

func TestSeedExamplesLoad(t *testing.T) {
	for _, f := range []string{"research-to-proposal.yaml", "multi-criteria-lead-scoring.yaml"} {
		wf, probs := LoadFile(filepath.Join("..", "..", "workflows", f), nil)
		if wf == nil || probs.HasErrors() {
			t.Fatalf("%s: %v", f, probs)
		}
		for _, p := range probs {
			t.Logf("%s", p)
		}
	}
	wf, _ := LoadFile("../../workflows/research-to-proposal.yaml", nil)
	if got := wf.Deps(wf.Steps[3]); strings.Join(got, ",") != "research,identify_pains,pricing" {
		t.Errorf("draft deps = %v", got)
	}
	if got := wf.Deps(wf.Steps[4]); strings.Join(got, ",") != "research,identify_pains,pricing,draft" {
		t.Errorf("review deps = %v", got)
	}
	if r := wf.Agents["researcher"]; r.Retry.MaxAttempts != 2 || r.OnFailure != "skip" || strings.Join(r.Rules.Allow, ",") == "" {
		t.Errorf("researcher = %+v", r)
	}
}

func TestLoadErrorsCarryLines(t *testing.T) {
	cases := []struct {
		name, yaml, want string
		line             int
	}{
		{"undefined input", `workflow: {name: w}
agents:
  a: {prompt: "hi"}
steps:
  - id: one
    agent: a
    input: "{{inputs.nope}}"
`, "undefined variable inputs.nope", 7},
		{"later step", `workflow: {name: w}
agents:
  a: {prompt: "hi"}
steps:
  - id: one
    agent: a
    input: "{{steps.two.output}}"
  - id: two
    agent: a
`, "comes later (a cycle)", 7},
		{"self", `workflow: {name: w}
agents:
  a: {prompt: "hi"}
steps:
  - id: one
    agent: a
    input: "{{steps.one.output}}"
`, "its own output (a cycle)", 7},
		{"unknown agent", `workflow: {name: w}
steps:
  - id: one
    agent: ghost
`, `agent "ghost" is neither`, 4},
		{"bad condition", `workflow: {name: w}
agents:
  a: {prompt: "hi"}
steps:
  - id: one
    agent: a
  - id: gate
    type: conditional
    condition:
      eval: "{{steps.one.output.score}} >= "
      true: a
`, "condition", 10},
		{"undefined bare name", `workflow: {name: w}
agents:
  a: {prompt: "hi"}
steps:
  - id: one
    agent: a
  - id: gate
    condition:
      eval: "score >= 80"
      true: a
`, "undefined variable score", 9},
		{"yaml syntax", "workflow: {name: w\nsteps: [", "YAML syntax", 0},
		{"bad backoff", `workflow: {name: w}
agents:
  a:
    prompt: hi
    retry: {max_attempts: 2, backoff: sometimes}
steps:
  - {id: one, agent: a}
`, "retry.backoff", 5},
		{"bad schema", `workflow: {name: w}
agents:
  a:
    prompt: hi
    validation:
      schema: {type: 12}
steps:
  - {id: one, agent: a}
`, "schema", 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wf, probs := Parse("w.yaml", []byte(c.yaml), func(string) bool { return false })
			if wf != nil || !probs.HasErrors() {
				t.Fatalf("loaded; problems %v", probs)
			}
			found := false
			for _, p := range probs {
				if strings.Contains(p.Message, c.want) && p.File == "w.yaml" && (c.line == 0 || p.Line == c.line) {
					found = true
				}
			}
			if !found {
				t.Fatalf("want %q at line %d, got:\n%v", c.want, c.line, probs)
			}
		})
	}
}

func TestRegistryAgentAndGate(t *testing.T) {
	wf, probs := Parse("w.yaml", []byte(`workflow: {name: w}
agents:
  classify: {prompt: "classify {{inputs.lead}}"}
  hot: {prompt: "hot lead {{steps.classify.output.category}}"}
inputs:
  - {name: lead, type: json, required: true}
steps:
  - {id: classify, agent: classify, output: {format: json}}
  - id: route
    condition:
      eval: "{{steps.classify.output.category}} == 'hot'"
      true: hot_step
      false: code-reviewer
  - {id: hot_step, agent: hot}
`), func(n string) bool { return n == "code-reviewer" })
	if wf == nil {
		t.Fatal(probs)
	}
	if g := wf.Gate(wf.Steps[2]); g == nil || g.ID != "route" {
		t.Fatalf("gate = %v", g)
	}
	if d := wf.Deps(wf.Steps[1]); len(d) != 1 || d[0] != "classify" {
		t.Fatalf("route deps %v", d)
	}
}

// TestPlainPathsAgreeWithTheVM: the fast path gives what expr gives.
func TestPlainPathsAgreeWithTheVM(t *testing.T) {
	env := map[string]any{"inputs": map[string]any{"a": "x", "o": map[string]any{"n": 1.0}},
		"steps": map[string]any{"s": map[string]any{"output": "text"}}}
	for _, src := range []string{"inputs.a", "inputs.o.n", "inputs.missing", "steps.s.output", "steps.s.output.field", "steps.none.output"} {
		tp, err := parseTemplate("{{" + src + "}}")
		if err != nil {
			t.Fatal(err)
		}
		fast, ferr := tp.parts[0].eval(env)
		slow, serr := expr.Run(tp.parts[0].prog, env)
		if fmt.Sprint(fast) != fmt.Sprint(slow) || (ferr == nil) != (serr == nil) {
			t.Errorf("%s: fast %v %v, vm %v %v", src, fast, ferr, slow, serr)
		}
	}
}

func TestUnusedAgentIsWarnedAndItsPromptChecked(t *testing.T) {
	_, probs := Parse("w.yaml", []byte(`workflow: {name: w}
agents:
  a: {prompt: "hi"}
  spare:
    prompt: "{{inputs.nope}}"
steps:
  - {id: one, agent: a}
`), nil)
	if !probs.HasErrors() || !strings.Contains(probs.Error(), "w.yaml:4: warning: agent spare is not used") ||
		!strings.Contains(probs.Error(), "w.yaml:5: error: agent spare: undefined variable inputs.nope") {
		t.Fatalf("%v", probs)
	}
}

func TestLoadReportsEachBadKeyAtItsLine(t *testing.T) {
	src := `workflow: {name: w, version: 1.0}
agents:
  a: {prompt: "hi", retry: {max_attempts: lots}}
steps:
  - id: one
    agent: [a]
    wiat: all
  - id: two
    agent: a
    id: three
`
	_, probs := Parse("w.yaml", []byte(src), nil)
	want := []string{
		"w.yaml:3: error: agents.a.retry.max_attempts must be a whole number, got string \"lots\"",
		"w.yaml:6: error: steps[0].agent must be a string, got a list",
		"w.yaml:7: warning: unknown key steps[0].wiat (expected id, agent, type,",
		"w.yaml:10: error: key \"steps[1].id\" is set twice (first on line 8)",
	}
	for _, w := range want {
		if !strings.Contains(probs.Error(), w) {
			t.Errorf("missing %q in:\n%v", w, probs)
		}
	}
}

func TestLoadReadsScalarsByTheirText(t *testing.T) {
	wf, probs := Parse("w.yaml", []byte(`workflow: {name: w, version: 1.0}
agents:
  a: {prompt: "hi", retry: {max_attempts: "2"}}
steps:
  - id: fan
    parallel: [{agent: a, output_key: x}, {agent: a, output_key: y}]
    wait: 1
`), nil)
	if wf == nil {
		t.Fatal(probs)
	}
	if wf.Version != "1.0" || wf.Agents["a"].Retry.MaxAttempts != 2 || wf.Steps[0].WaitN != 1 {
		t.Fatalf("version %q, attempts %d, wait %d", wf.Version, wf.Agents["a"].Retry.MaxAttempts, wf.Steps[0].WaitN)
	}
}
