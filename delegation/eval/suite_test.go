package eval

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// coreExample is the suite of issue 28 as written there.
const coreExample = `agent: lead                      # or workflow: NAME
model: script:evals/lead.script.yaml   # optional
cases:
  - name: delegates-and-answers
    task: "Summarise the report"
    expect:
      output_contains: ["summary"]
      output_regex: "(?i)summary"
      trajectory: {agents: [helper], order: any}   # or order: exact; tools: [...]
      max_tokens: 5000
      no_denied: true
`

func TestTheCoreExampleParsesAsWritten(t *testing.T) {
	s, err := Parse("evals/lead.yaml", []byte(coreExample))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "lead" || s.Agent != "lead" || s.Model != "script:evals/lead.script.yaml" || len(s.Cases) != 1 {
		t.Fatalf("suite = %+v", s)
	}
	c := s.Cases[0]
	x := c.Expect
	if c.Name != "delegates-and-answers" || c.Task != "Summarise the report" || c.Line != 4 {
		t.Errorf("case = %+v", c)
	}
	if len(x.OutputContains) != 1 || x.OutputRegex.String() != "(?i)summary" || x.MaxTokens != 5000 || !x.NoDenied {
		t.Errorf("expect = %+v", x)
	}
	if tr := x.Trajectory; tr == nil || tr.Order != OrderAny || len(tr.Agents) != 1 || tr.Agents[0] != "helper" || tr.MinScore != 1 {
		t.Errorf("trajectory = %+v", x.Trajectory)
	}
}

func TestABrokenSuiteSaysWhereAndWhy(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"a misspelt key", "agent: a\ncases:\n  - name: x\n    task: t\n    expct: {}\n", "evals/s.yaml:5: unknown key cases[0].expct (expected name, task, inputs, script or expect)"},
		{"an unknown top-level key", "agent: a\nbogus: 1\ncases:\n  - {name: x, task: t}\n", "evals/s.yaml:2: unknown key bogus (expected agent, workflow, model, judge, description or cases)"},
		{"an unknown expectation", "agent: a\ncases:\n  - name: x\n    task: t\n    expect: {output_contain: y}\n",
			"evals/s.yaml:5: unknown key cases[0].expect.output_contain (expected output_contains, output_regex"},
		{"an unknown trajectory key", "agent: a\ncases:\n  - name: x\n    task: t\n    expect:\n      trajectory: {agent: [b]}\n",
			"evals/s.yaml:6: unknown key cases[0].expect.trajectory.agent (expected agents, tools, order or min_score)"},
		{"a bad regex", "agent: a\ncases:\n  - name: x\n    task: t\n    expect:\n      output_regex: \"(\"\n", "evals/s.yaml:6: case \"x\" output_regex"},
		{"a schema that does not compile", "agent: a\ncases:\n  - name: x\n    task: t\n    expect:\n      output_schema: {type: 12}\n", "evals/s.yaml:6: case \"x\" output_schema"},
		{"no target", "cases:\n  - name: x\n    task: t\n", "evals/s.yaml:1: a suite names the agent: or the workflow:"},
		{"both targets", "agent: a\nworkflow: w\ncases: []\n", "evals/s.yaml:2: a suite runs an agent: or a workflow:, not both"},
		{"no task", "agent: a\ncases:\n  - name: x\n", "evals/s.yaml:3: case \"x\" has no task:"},
		{"a name twice", "agent: a\ncases:\n  - {name: x, task: t}\n  - {name: x, task: u}\n", "evals/s.yaml:4: case \"x\" is named twice (first on line 3)"},
		{"an unknown order", "agent: a\ncases:\n  - name: x\n    task: t\n    expect:\n      trajectory: {agents: [b], order: sorted}\n", "evals/s.yaml:6: case \"x\" trajectory order"},
		{"a broken script", "agent: a\ncases:\n  - name: x\n    task: t\n    script: {a: [{}]}\n", "evals/s.yaml:5: case \"x\" script"},
		{"a value of the wrong kind", "agent: a\ncases:\n  - name: x\n    task: t\n    expect:\n      no_denied: maybe\n",
			`evals/s.yaml:6: cases[0].expect.no_denied must be true or false, got string "maybe"`},
		{"a word list that is a mapping", "agent: a\ncases:\n  - name: x\n    task: t\n    expect:\n      output_contains: {a: b}\n",
			"evals/s.yaml:6: cases[0].expect.output_contains: want a string or a list of strings, got a mapping"},
		{"inputs that are not a mapping", "workflow: w\ncases:\n  - name: x\n    inputs: [a]\n", "evals/s.yaml:4: case \"x\" inputs must be a mapping, got a list"},
		{"the first of two mistakes", "agent: a\ncases:\n  - name: x\n    task: t\n    expect: {max_tokens: lots, nodenied: true}\n",
			"evals/s.yaml:5: cases[0].expect.max_tokens must be a whole number"},
		{"YAML that does not parse", "agent: a\ncases:\n  - name: x\n   task: t\n", "evals/s.yaml:2: did not find expected '-' indicator"},
		{"a time that is not one", "agent: a\ncases:\n  - name: x\n    task: t\n    expect: {max_time: soon}\n", "evals/s.yaml:5: case \"x\" max_time"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("evals/s.yaml", []byte(c.text))
			var p Problem
			if !errors.As(err, &p) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error = %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestOneWordOrAListOfWordsAndScalarsByTheirText(t *testing.T) {
	s, err := Parse("evals/s.yaml", []byte("agent: a\ncases:\n  - name: 2024\n    task: t\n    expect:\n      output_contains: summary\n      max_tokens: \"500\"\n      trajectory: {tools: [read_file, 42], min_score: 0.5}\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := s.Cases[0]
	x := c.Expect
	if c.Name != "2024" || c.Line != 3 || !slices.Equal(x.OutputContains, []string{"summary"}) || x.MaxTokens != 500 {
		t.Errorf("case = %+v", c)
	}
	if tr := x.Trajectory; tr == nil || !slices.Equal(tr.Tools, []string{"read_file", "42"}) || tr.MinScore != 0.5 || tr.Order != OrderExact {
		t.Errorf("trajectory = %+v", x.Trajectory)
	}
}

func TestScoreIsADKsTrajectoryMatchWithPartialCredit(t *testing.T) {
	cases := []struct {
		order            string
		expected, actual string
		want             float64
	}{
		{OrderExact, "a b", "a b", 1},
		{OrderExact, "a b", "b a", 0.5},
		{OrderExact, "a b", "a b c", 2.0 / 3},
		{OrderInOrder, "a b", "a x b", 1},
		{OrderInOrder, "a b", "b a", 0.5},
		{OrderAny, "a b", "b x a", 1},
		{OrderAny, "a a", "a", 0.5},
		{OrderAny, "", "x", 1},
		{OrderExact, "", "x", 0},
		{OrderExact, "", "", 1},
	}
	for _, c := range cases {
		got := Score(c.order, strings.Fields(c.expected), strings.Fields(c.actual))
		if got != c.want {
			t.Errorf("Score(%s, [%s], [%s]) = %v, want %v", c.order, c.expected, c.actual, got, c.want)
		}
	}
}
