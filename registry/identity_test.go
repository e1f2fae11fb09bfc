package registry

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

func TestIdentityFollowsTheFileKind(t *testing.T) {
	tests := []struct {
		name, file, text string
		id, display      string
		warn             string // a warning the file must have ("" = no problems)
	}{
		{"a valid name is the id", "x.md", "---\nname: research-coordinator\ndescription: A\n---\n", "research-coordinator", "", ""},
		{"an id with dots", "p.md", "---\nname: powershell-5.1-expert\ndescription: A\n---\n", "powershell-5.1-expert", "", ""},
		{"no name takes the file stem", "team/data-analyst.md", "---\ndescription: A\n---\n", "data-analyst", "", ""},
		{"a VS Code agent is named by its file", "CSharpExpert.agent.md", "---\nname: C# Expert\ndescription: A\n---\n", "csharpexpert", "C# Expert", ""},
		{"a VS Code chat mode is named by its file", "4.1-Beast.chatmode.md", "---\ndescription: A\n---\n", "4.1-beast", "", ""},
		{"a VS Code name equal to the stem is no display name", "planner.agent.md", "---\nname: planner\ndescription: A\n---\n", "planner", "", ""},
		{"a name that is not an id is a display name", "research-coordinator.md", "---\nname: Research Coordinator\ndescription: A\n---\n", "research-coordinator", "Research Coordinator", `name "Research Coordinator" is not a valid id`},
		{"a file name with spaces is slugged", "My Agent.md", "---\ndescription: A\n---\n", "my-agent", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(tc.file, []byte(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			a, probs := d.Agent()
			if a.Name != tc.id || a.DisplayName != tc.display {
				t.Fatalf("id %q display %q, want %q %q", a.Name, a.DisplayName, tc.id, tc.display)
			}
			if tc.warn == "" && len(probs) > 0 || tc.warn != "" && (len(probs) != 1 || probs[0].Severity != SeverityWarning || !strings.Contains(probs[0].Message, tc.warn)) {
				t.Fatalf("problems = %v, want %q", probs, tc.warn)
			}
			for _, p := range probs {
				if p.Agent != tc.id {
					t.Fatalf("problem names agent %q, want the id %q", p.Agent, tc.id)
				}
			}
		})
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"C# Expert": "c-expert", "Research Coordinator": "research-coordinator", "--a__b--": "a__b",
		"PowerShell 5.1 Expert": "powershell-5.1-expert", "日本": "", "a/b": "a-b",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestModelIsAStringOrAPrioritizedList(t *testing.T) {
	tests := []struct {
		name, fm string
		want     []string
		line     int
	}{
		{"a string", "model: sonnet\n", []string{"sonnet"}, 4},
		{"a flow list", "model: ['Claude Sonnet 4.5 (copilot)', 'GPT-5 (copilot)']\n", []string{"Claude Sonnet 4.5 (copilot)", "GPT-5 (copilot)"}, 4},
		{"a block list", "model:\n  - openai:gpt-4.1\n  - demo\n", []string{"openai:gpt-4.1", "demo"}, 5},
		{"none", "", nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse("a.md", []byte("---\nname: a\ndescription: A\n"+tc.fm+"---\n"))
			if err != nil {
				t.Fatal(err)
			}
			a, probs := d.Agent()
			if len(probs) > 0 || !slices.Equal(a.Models, tc.want) || a.ModelLine != tc.line {
				t.Fatalf("models %q line %d problems %v, want %q line %d", a.Models, a.ModelLine, probs, tc.want, tc.line)
			}
			if len(tc.want) > 0 && a.Model != tc.want[0] {
				t.Fatalf("model = %q, want the first of the list", a.Model)
			}
		})
	}
}

// Keys other tools write are kept; those that would change what the agent
// does (hooks, handoffs) are warned about only when they ask for something.
func TestUnknownKeysThatAreNoNearMissStayAllowed(t *testing.T) {
	text := "---\nname: a\ndescription: A\ncolor: blue\nhooks: {}\nargument-hint: x\nx-owner: me\nhandoffs: []\n---\n"
	d, err := Parse("a.md", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if _, probs := d.Agent(); len(probs) > 0 {
		t.Fatalf("problems = %v, want none", probs)
	}
	if string(d.Bytes()) != text {
		t.Fatal("unknown keys were not kept")
	}
}

func TestLenientDescriptionKeepsTheBytesUntilEdited(t *testing.T) {
	text := "---\nname: a\ndescription: Use this agent when: the user asks for it. Examples: <example>x</example>\nmodel: sonnet\n---\nBody\n"
	d, err := Parse("a.md", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	a, probs := d.Agent()
	if a.Description != "Use this agent when: the user asks for it. Examples: <example>x</example>" {
		t.Fatalf("description = %q", a.Description)
	}
	if len(probs) != 1 || probs[0].Line != 3 || probs[0].Severity != SeverityWarning {
		t.Fatalf("problems = %v, want one warning on line 3", probs)
	}
	resubmitEveryField(t, d)
	if got := string(d.Bytes()); got != text {
		t.Fatalf("re-submitting changed the file:\n%s", got)
	}
	if err := d.Set("model", "opus"); err != nil {
		t.Fatal(err)
	}
	if got := string(d.Bytes()); got != strings.Replace(text, "sonnet", "opus", 1) {
		t.Fatalf("editing another field changed the description line:\n%s", got)
	}
	if err := d.Set("description", "Use when: asked"); err != nil {
		t.Fatal(err)
	}
	d2, err := Parse("a.md", d.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if _, probs := d2.Agent(); len(probs) != 0 {
		t.Fatalf("after editing the description: %v, want it written as valid YAML", probs)
	}
}

func TestLenientReadingDoesNotHideRealYAMLErrors(t *testing.T) {
	_, err := Parse("a.md", []byte("---\nname: a\ndescription: x: y\ntools: [Read\n---\n"))
	if err == nil || !strings.Contains(err.Error(), "invalid YAML") {
		t.Fatalf("err = %v, want invalid YAML", err)
	}
}

func TestAnUnclosedOpeningAfterBlankLinesIsReported(t *testing.T) {
	_, err := Parse("a.md", []byte("\n\n---\nname: a\ndescription: x\n"))
	if err == nil || !strings.Contains(err.Error(), "a.md:3: the opening --- on line 3 is never closed") {
		t.Fatalf("err = %v", err)
	}
}

func TestFrontmatterAfterBlankLinesCountsLinesFromTheFileTop(t *testing.T) {
	text := "\n---\nname: a\ndescription: A\nmax_turns: 0\n---\nBody\n"
	d, err := Parse("a.md", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if string(d.Bytes()) != text {
		t.Fatalf("round trip: %q", d.Bytes())
	}
	if _, probs := d.Agent(); len(probs) != 1 || probs[0].Line != 5 {
		t.Fatalf("problems = %v, want one on line 5", probs)
	}
}

func TestRetryDelayFollowsTheBackoffPolicy(t *testing.T) {
	const base, limit = 100 * time.Millisecond, time.Second
	tests := []struct {
		backoff string
		want    []time.Duration // retries 0, 1, 2, 3, 70
	}{
		{BackoffExponential, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, limit}},
		{BackoffLinear, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond, 400 * time.Millisecond, limit}},
		{BackoffConstant, []time.Duration{base, base, base, base, base}},
		{BackoffNone, []time.Duration{0, 0, 0, 0, 0}},
	}
	for _, tc := range tests {
		for i, retry := range []int{0, 1, 2, 3, 70} {
			if got := (Retry{Backoff: tc.backoff}).Delay(base, limit, retry); got != tc.want[i] {
				t.Errorf("%s retry %d: %v, want %v", tc.backoff, retry, got, tc.want[i])
			}
		}
	}
}

func TestLenientReadingWorksWithCRLF(t *testing.T) {
	text := "---\r\nname: a\r\ndescription: Use when: asked\r\n---\r\nBody\r\n"
	d, err := Parse("a.md", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if a, probs := d.Agent(); a.Description != "Use when: asked" || len(probs) != 1 || probs[0].Line != 3 {
		t.Fatalf("description %q, problems %v", a.Description, probs)
	}
	if string(d.Bytes()) != text {
		t.Fatal("round trip changed the file")
	}
}

// VS Code reads every *.md in .github/agents as a custom agent, named by
// its file as a *.agent.md is: name: is the display name there, and the
// description may be left out.
func TestAPlainMarkdownFileInGithubAgentsIsAVSCodeAgent(t *testing.T) {
	s := mustLoad(t, fstest.MapFS{
		".github/agents/reviewer.md": {Data: []byte("---\nname: Code Reviewer\ntools: ['read']\n---\nReview.\n")},
	})
	a, ok := s.Agent("reviewer")
	if !ok {
		t.Fatalf("agents %v: want reviewer", s.Agents())
	}
	if a.DisplayName != "Code Reviewer" || a.Delegation.Refused == "" || !slices.Equal(a.Tools.Allow, []string{"filesystem.read_file"}) {
		t.Errorf("agent %+v: want display name Code Reviewer, VS Code tools, no delegating", a)
	}
	if probs := s.ProblemsFor("reviewer"); len(probs) != 1 || probs[0].Severity != SeverityWarning || !strings.Contains(probs[0].Message, "description is missing") {
		t.Errorf("problems %v: want the missing description as a warning", probs)
	}
}
