package delegation

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/delegation/tool/filesystem"
	"github.com/agentry/agentry/delegation/tool/skill"
	"github.com/agentry/agentry/registry/skills"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// skillsFixture is a skills folder on disk with three skills: pdf-forms
// (a reference, a script, allowed-tools), secret, and manual (only a
// person may start it).
func skillsFixture(t *testing.T) (*skills.Catalog, string) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"pdf-forms/SKILL.md":             "---\nname: pdf-forms\ndescription: Fill PDF forms. Use when a form must be filled.\nallowed-tools: Read Bash(sh:*)\n---\nRead references/fields.md, then run `sh scripts/fill.sh FORM VALUES`.\n",
		"pdf-forms/references/fields.md": "name, date",
		"pdf-forms/scripts/fill.sh":      "echo filled",
		"secret/SKILL.md":                "---\nname: secret\ndescription: Never for this agent.\n---\nSecret instructions.\n",
		"manual/SKILL.md":                "---\nname: manual\ndescription: Started by people only.\ndisable-model-invocation: true\n---\nManual.\n",
	}
	for rel, text := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cat := skills.NewCatalog()
	if err := cat.Add(skills.Root{Label: "skills", Kind: skills.RootSkills, Dir: dir}).Load(os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if probs := cat.Snapshot().Problems(); len(probs) != 0 {
		t.Fatalf("fixture problems: %v", probs)
	}
	return cat, dir
}

// skillsSetup is setup with the skills fixture, the skill tool, a real
// filesystem workspace, a fake shell and web.fetch, and a recorder of
// every model request.
func skillsSetup(t *testing.T, agents map[string]string, scriptText string) (fixture, *recorder, *fakeShell) {
	t.Helper()
	cat, _ := skillsFixture(t)
	ws, err := filesystem.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	sh := &fakeShell{}
	sm, err := script.Parse([]byte(scriptText))
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{LLM: sm}
	fetch := tool.Func{Def: model.Tool{Name: "web.fetch"}, Fn: func(context.Context, json.RawMessage) (string, error) { return "page", nil }}
	f := setup(t, agents, "{}", func(c *Config) {
		c.Tools = append(append(ws.Tools(), sh, fetch), skill.New())
		c.Skills = cat
		c.Models = model.Providers{"script": func(string) (model.LLM, error) { return rec, nil }}
	})
	return f, rec, sh
}

func TestAnAgentUsesASkillEndToEnd(t *testing.T) {
	f, rec, sh := skillsSetup(t, map[string]string{"writer": "skills: {deny: [secret]}\n"}, `{}`)
	lib := f.rt.cfg.Skills.Snapshot()
	pdf, _ := lib.Skill("pdf-forms")
	sm, err := script.Parse([]byte(`
writer:
  - calls: [{tool: skill, args: {name: pdf-forms}}]
  - calls: [{tool: filesystem.read_file, args: {path: "` + pdf.Path + `/references/fields.md"}}]
  - calls: [{tool: shell.run, args: {command: "sh ` + pdf.Path + `/scripts/fill.sh form.pdf values"}}]
  - calls: [{tool: web.fetch, args: {url: "https://example.com"}}]
  - calls: [{tool: skill, args: {name: secret}}]
  - say: filled
`))
	if err != nil {
		t.Fatal(err)
	}
	rec.LLM = sm
	if res := f.run(t, "writer", "fill the form"); res.Status != trace.StatusOK {
		t.Fatalf("run: %+v", res)
	}
	// It saw the usable skill's description, and nothing of the others.
	first := rec.reqs["writer"][0]
	if !strings.Contains(first.System, "<name>pdf-forms</name><description>Fill PDF forms.") ||
		strings.Contains(first.System, "secret") || strings.Contains(first.System, "manual") {
		t.Errorf("system prompt:\n%s", first.System)
	}
	i := slices.IndexFunc(first.Tools, func(tl model.Tool) bool { return tl.Name == skill.Name })
	if i < 0 || !strings.Contains(string(first.Tools[i].Parameters), `"enum":["pdf-forms"]`) {
		t.Fatalf("skill tool offered: %v", first.Tools)
	}
	// It loaded the body, read the reference and ran the script.
	spans := f.sink.named("execute_tool skill")
	if len(spans) != 2 || spans[0].Status != trace.StatusOK || spans[0].Attributes["skill"] != "pdf-forms" ||
		!strings.Contains(spans[0].Attributes[semconv.AttrToolResult].(string), "Base directory for this skill: "+pdf.Path) {
		t.Fatalf("skill spans: %+v", spans)
	}
	if sp := f.sink.one(t, "execute_tool filesystem.read_file"); sp.Status != trace.StatusOK || sp.Attributes[semconv.AttrToolResult] != "name, date" {
		t.Errorf("read the reference: %s %v", sp.Status, sp.Attributes[semconv.AttrToolResult])
	}
	if !slices.Equal(sh.ran, []string{"sh " + pdf.Path + "/scripts/fill.sh form.pdf values"}) {
		t.Errorf("ran %q", sh.ran)
	}
	// Its allowed-tools narrowed the agent: web.fetch is gone.
	if sp := f.sink.one(t, "execute_tool web.fetch"); sp.Status != trace.StatusDenied || !strings.Contains(sp.Error, `skill "pdf-forms"'s allowed-tools`) {
		t.Errorf("web.fetch after the skill: %s %q", sp.Status, sp.Error)
	}
	// The denied skill is refused and says why.
	if sp := spans[1]; sp.Status != trace.StatusDenied || !strings.Contains(sp.Error, `deny pattern "secret"`) {
		t.Errorf("loading the denied skill: %s %q", sp.Status, sp.Error)
	}
	inv := f.sink.one(t, "invoke_agent writer")
	if got := inv.Attributes[AttrSkillsOffered]; !slices.Equal(got.([]string), []string{"pdf-forms"}) {
		t.Errorf("skills offered %v", got)
	}
	if got := inv.Attributes[AttrSkillsLoaded]; !slices.Equal(got.([]string), []string{"pdf-forms"}) {
		t.Errorf("skills loaded %v", got)
	}
}

func TestSkillsAreIntersectedDownTheDelegationChain(t *testing.T) {
	f, rec, _ := skillsSetup(t, map[string]string{
		"lead":   "subagents: {allow: [helper]}\nskills: {allow: [pdf-forms]}\n",
		"helper": "",
	}, `
lead:
  - calls: [{tool: delegate, args: {agent: helper, task: "fill it"}}]
  - say: done
helper:
  - calls: [{tool: skill, args: {name: pdf-forms}}]
  - calls: [{tool: skill, args: {name: secret}}]
  - say: filled
`)
	if res := f.run(t, "lead", "go"); res.Status != trace.StatusOK {
		t.Fatalf("run: %+v", res)
	}
	sys := rec.reqs["helper"][0].System
	if !strings.Contains(sys, "pdf-forms") || strings.Contains(sys, "secret") {
		t.Errorf("the helper may use only what its parent may:\n%s", sys)
	}
	d := f.sink.delegations()["helper"]
	if got, _ := d.Attributes[AttrSkillsLoaded].([]string); !slices.Equal(got, []string{"pdf-forms"}) {
		t.Errorf("delegate span's skills_loaded: %v", d.Attributes[AttrSkillsLoaded])
	}
	spans := f.sink.named("execute_tool skill")
	if len(spans) != 2 || spans[1].Status != trace.StatusDenied || !strings.Contains(spans[1].Error, `agent "lead"`) {
		t.Errorf("secret through the chain: %+v", spans)
	}
}

func TestClaudeCodesSkillsListPreloadsTheirInstructions(t *testing.T) {
	f, rec, _ := skillsSetup(t, map[string]string{"reader": "tools: Read, Grep\nskills: [pdf-forms]\n"}, `
reader:
  - say: read
`)
	if res := f.run(t, "reader", "go"); res.Status != trace.StatusOK {
		t.Fatalf("run: %+v", res)
	}
	req := rec.reqs["reader"][0]
	if !strings.Contains(req.System, "## Skill pdf-forms (preloaded)") || !strings.Contains(req.System, "Read references/fields.md") {
		t.Errorf("preloaded body missing:\n%s", req.System)
	}
	if slices.ContainsFunc(req.Tools, func(tl model.Tool) bool { return tl.Name == skill.Name }) {
		t.Error("tools: Read, Grep does not list Skill: no skill tool")
	}
	if got := f.sink.one(t, "invoke_agent reader").Attributes[AttrSkillsLoaded]; !slices.Equal(got.([]string), []string{"pdf-forms"}) {
		t.Errorf("skills loaded %v", got)
	}
}

func TestADispatchedAgentsLoadedSkillsAreOnItsDispatchSpan(t *testing.T) {
	f, _, _ := skillsSetup(t, map[string]string{"orch": "tools: [filesystem, skill]\nsubagents:\n  dispatch: true\n"}, `
orch:
  - calls: [{tool: dispatch_agent, args: {agent_id: filler, mission: "fill it", skills: [skill]}}]
  - calls: [{tool: get_agent_results}]
  - say: done
filler:
  - calls: [{tool: skill, args: {name: pdf-forms}}]
  - say: filled
`)
	if res := f.run(t, "orch", "go"); res.Status != trace.StatusOK {
		t.Fatalf("run: %+v", res)
	}
	d := f.sink.one(t, "execute_tool dispatch_agent")
	if got, _ := d.Attributes[AttrSkillsLoaded].([]string); !slices.Equal(got, []string{"pdf-forms"}) {
		t.Errorf("dispatch_agent span's skills_loaded: %v (%v)", d.Attributes[AttrSkillsLoaded], d.Attributes)
	}
}
