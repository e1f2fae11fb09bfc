package skills

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentry/agentry/registry"
)

func TestParseSkillReadsTheSpecFields(t *testing.T) {
	data := "---\nname: pdf-tools\ndescription: Fill PDF forms. Use when the user mentions PDF forms.\nlicense: MIT\n" +
		"compatibility: needs python3\nmetadata:\n  author: example\n  version: \"1.0\"\nallowed-tools: Read Bash(python3:*)\n---\n\n# PDF\nRun `python3 scripts/fill.py`.\n"
	s, probs := Parse("pdf-tools", []byte(data), []Resource{{Path: "scripts/fill.py", Size: 10}})
	if len(probs) != 0 {
		t.Fatalf("problems: %v", probs)
	}
	if s.ID != "pdf-tools" || s.Name != "pdf-tools" || s.License != "MIT" || s.Compatibility != "needs python3" {
		t.Errorf("skill: %+v", s)
	}
	if s.Metadata["author"] != "example" || s.Metadata["version"] != "1.0" {
		t.Errorf("metadata: %v", s.Metadata)
	}
	if want := []string{"filesystem.read_file", "shell.run(python3 *)"}; !slices.Equal(s.AllowedTools, want) {
		t.Errorf("allowed tools %q; want %q", s.AllowedTools, want)
	}
	if !strings.HasPrefix(s.Body, "# PDF") || !s.ModelInvocable {
		t.Errorf("body %q, model invocable %v", s.Body, s.ModelInvocable)
	}
}

func TestParseSkillReportsTheSpecRules(t *testing.T) {
	for _, tc := range []struct {
		name, dir, data string
		files           []Resource
		wantID          string
		wantSeverity    string
		wantLine        int
		wantMessage     string
	}{
		{"a name with capitals and underscores loads under its folder's name", "pdf-tools",
			"---\nname: PDF_Tools\ndescription: d\n---\nbody\n", nil, "pdf-tools", registry.SeverityWarning, 2, "breaks the Agent Skills rule"},
		{"a name with a double hyphen breaks the rule", "a--b",
			"---\nname: a--b\ndescription: d\n---\nbody\n", nil, "a-b", registry.SeverityWarning, 2, "breaks the Agent Skills rule"},
		{"a name longer than 64 characters breaks the rule", "long",
			"---\nname: " + strings.Repeat("a", 65) + "\ndescription: d\n---\nbody\n", nil, "long", registry.SeverityWarning, 2, "1-64 characters"},
		{"a name that differs from its folder is served by its name", "postgresql",
			"---\nname: postgresql-table-design\ndescription: d\n---\nbody\n", nil, "postgresql-table-design", registry.SeverityWarning, 2, `differs from its folder "postgresql"`},
		{"a missing name is taken from the folder", "forms",
			"---\ndescription: d\n---\nbody\n", nil, "forms", registry.SeverityWarning, 1, "name is missing"},
		{"a missing description is an error", "x",
			"---\nname: x\n---\nbody\n", nil, "x", registry.SeverityError, 1, "description is missing"},
		{"an empty description is an error", "x",
			"---\nname: x\ndescription: \"\"\n---\nbody\n", nil, "x", registry.SeverityError, 3, "description is missing"},
		{"a description over 1024 characters is a warning", "x",
			"---\nname: x\ndescription: " + strings.Repeat("d", 1025) + "\n---\nbody\n", nil, "x", registry.SeverityWarning, 3, "1025 characters"},
		{"compatibility over 500 characters is a warning", "x",
			"---\nname: x\ndescription: d\ncompatibility: " + strings.Repeat("c", 501) + "\n---\nbody\n", nil, "x", registry.SeverityWarning, 4, "compatibility is 501"},
		{"a link to a missing reference names its line", "x",
			"---\nname: x\ndescription: d\n---\n\nSee [forms](references/forms.md).\n", nil, "x", registry.SeverityWarning, 6, `link to "references/forms.md"`},
		{"a script named in code that is missing names its line", "x",
			"---\nname: x\ndescription: d\n---\n\n```bash\npython scripts/fill.py in.pdf\n```\n", nil, "x", registry.SeverityWarning, 7, `"scripts/fill.py"`},
		{"a near miss of allowed-tools is an error", "x",
			"---\nname: x\ndescription: d\nallowed_tools: Read\n---\nbody\n", nil, "x", registry.SeverityError, 4, `did you mean "allowed-tools"`},
		{"a tool agentry lacks is a warning", "x",
			"---\nname: x\ndescription: d\nallowed-tools: Read NotebookEdit\n---\nbody\n", nil, "x", registry.SeverityWarning, 4, "NotebookEdit"},
		{"Claude Code's forked skill context is said to be ignored", "x",
			"---\nname: x\ndescription: d\ncontext: fork\nagent: Explore\n---\nbody\n", nil, "x", registry.SeverityWarning, 4, "context is ignored: agentry loads a skill's instructions into the agent that loads it"},
		{"a skill's own model is said to be ignored", "x",
			"---\nname: x\ndescription: d\nmodel: opus\n---\nbody\n", nil, "x", registry.SeverityWarning, 4, "model is ignored"},
		{"broken YAML is an error with its line", "x",
			"---\nname: x\ndescription: [oops\n---\nbody\n", nil, "", registry.SeverityError, 3, "invalid YAML"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, probs := Parse(tc.dir, []byte(tc.data), tc.files)
			if tc.wantID != "" && s.ID != tc.wantID {
				t.Errorf("id %q; want %q", s.ID, tc.wantID)
			}
			for _, p := range probs {
				if p.Severity == tc.wantSeverity && p.Line == tc.wantLine && strings.Contains(p.Message, tc.wantMessage) {
					if p.File != tc.dir+"/SKILL.md" {
						t.Errorf("problem file %q", p.File)
					}
					return
				}
			}
			t.Fatalf("problems %v; want a %s on line %d containing %q", probs, tc.wantSeverity, tc.wantLine, tc.wantMessage)
		})
	}
}

func TestParseSkillAcceptsReferencesThatExist(t *testing.T) {
	data := "---\nname: x\ndescription: d\n---\n" +
		"Read [the forms](references/forms.md#fields) and ![logo](./assets/logo.png).\n" +
		"Run `python scripts/fill.py` or see `references/`. Links out: [spec](https://agentskills.io).\n" +
		"Placeholders are no files: `scripts/<name>.py`, `references/*.md`.\n"
	files := []Resource{{Path: "references/forms.md"}, {Path: "assets/logo.png"}, {Path: "scripts/fill.py"}}
	if _, probs := Parse("x", []byte(data), files); len(probs) != 0 {
		t.Fatalf("problems: %v", probs)
	}
}

func TestParseCommandReadsClaudeCodeCommands(t *testing.T) {
	data := "---\ndescription: Review a pull request\nargument-hint: <pr-number>\nallowed-tools: Read, Grep, Bash(git diff:*)\nmodel: haiku\n---\nReview PR $1: $ARGUMENTS\n"
	c, probs := ParseCommand("git/review.md", []byte(data))
	if len(probs) != 0 {
		t.Fatalf("problems: %v", probs)
	}
	if c.ID != "git:review" || c.Description != "Review a pull request" || c.Model != "haiku" || c.ArgumentHint != "<pr-number>" {
		t.Errorf("command: %+v", c)
	}
	if want := []string{"filesystem.read_file", "filesystem.grep", "shell.run(git diff *)"}; !slices.Equal(c.AllowedTools, want) || c.Delegates {
		t.Errorf("allowed tools %q delegates %v; want %q and no delegation", c.AllowedTools, c.Delegates, want)
	}
	if got := c.Expand("42 carefully"); got != "Review PR 42: 42 carefully" {
		t.Errorf("expanded %q", got)
	}
}

// Claude Code's command docs write argument-hint unquoted: [project-name]
// is a YAML list, [env] [version] no YAML at all. Claude Code shows both as
// written; neither may cost the command.
func TestParseCommandReadsArgumentHintsAsClaudeCodeWritesThem(t *testing.T) {
	for text, want := range map[string]string{
		"argument-hint: [project-name]":          "[project-name]",
		"argument-hint: [environment] [version]": "[environment] [version]",
		"argument-hint: {a: b}":                  "",
	} {
		c, probs := ParseCommand("deploy.md", []byte("---\ndescription: Deploy\n"+text+"\n---\nDeploy $1\n"))
		if registry.HasError(probs) || c.ArgumentHint != want || c.Description != "Deploy" {
			t.Errorf("%s: hint %q, description %q, problems %v; want hint %q and no error", text, c.ArgumentHint, c.Description, probs, want)
		}
		if warned := len(probs) > 0; warned != (want != "[project-name]") {
			t.Errorf("%s: problems %v", text, probs)
		}
	}
}

// Claude Code runs a command's !`git status` before it sends the prompt;
// agentry does not, and says so at the line.
func TestParseCommandWarnsThatItsShellLinesAreNotRunFirst(t *testing.T) {
	c, probs := ParseCommand("commit.md", []byte("---\ndescription: Commit\n---\n## Context\n\n- Status: !`git status`\n"))
	if len(probs) != 1 || probs[0].Severity != registry.SeverityWarning || probs[0].Line != 6 ||
		!strings.Contains(probs[0].Message, "!`git status` is not run before the prompt is sent") || c.Prompt == "" {
		t.Errorf("command %+v problems %v", c, probs)
	}
}

func TestParseCommandWithoutFrontmatterIsAPrompt(t *testing.T) {
	c, probs := ParseCommand("tidy.md", []byte("Tidy the code.\n"))
	if len(probs) != 0 || c.ID != "tidy" || c.AllowedTools != nil || !c.Delegates {
		t.Fatalf("command %+v, problems %v", c, probs)
	}
	if got := c.Expand("src/"); got != "Tidy the code.\n\nsrc/" {
		t.Errorf("arguments of a prompt without placeholders are appended: %q", got)
	}
	c, _ = ParseCommand("team.md", []byte("---\nallowed-tools: [\"Read\", \"Task\"]\n---\nGo\n"))
	if !c.Delegates || !slices.Equal(c.AllowedTools, []string{"filesystem.read_file"}) {
		t.Errorf("Task in allowed-tools lets the command delegate: %+v", c)
	}
	if _, probs := ParseCommand("empty.md", []byte("---\ndescription: d\n---\n")); len(probs) != 1 || probs[0].Severity != registry.SeverityError {
		t.Errorf("a command without a prompt: %v", probs)
	}
}

func TestCheckSkillsWarnsAboutSkillsNoRootServes(t *testing.T) {
	s := registry.Empty(registry.Options{}).Apply(registry.Change{Path: "a.md", Data: []byte("---\nname: a\ndescription: d\nskills:\n  - pdf\n  - pfd\n  - docs*\n---\nbody\n")})
	c := NewCatalog()
	if err := c.Add(Root{Label: "skills", Kind: RootSkills}).Load(fstestMap("pdf/SKILL.md", "---\nname: pdf\ndescription: d\n---\nb")); err != nil {
		t.Fatal(err)
	}
	probs := CheckAgents(s, c.Snapshot())
	if len(probs) != 1 || probs[0].Line != 6 || !strings.Contains(probs[0].Message, `"pfd"`) {
		t.Fatalf("problems %v; want one for pfd on line 6", probs)
	}
}
