package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// modelFixture is a folder of agents that name models the way Claude Code
// and VS Code files do, on a machine without provider keys.
func modelFixture(t *testing.T) (dir, agents string) {
	t.Helper()
	dir = t.TempDir()
	agents = filepath.Join(dir, "agents")
	writeFile(t, agents, "claude.md", "---\nname: claude\ndescription: A Claude Code agent\nmodel: sonnet\n---\nYou answer.\n")
	writeFile(t, agents, "gemini.md", "---\nname: gemini\ndescription: A VS Code agent\n# a comment\nmodel: Gemini 2.5 Pro (copilot)\n---\nYou answer.\n")
	writeFile(t, agents, "plain.md", "---\nname: plain\ndescription: No model\n---\nYou answer.\n")
	writeFile(t, agents, "local.md", "---\nname: local\ndescription: A local model\nmodel: gpt-4.1\n---\nYou answer.\n")
	return dir, agents
}

func TestValidateWarnsAboutAModelThisMachineCannotUse(t *testing.T) {
	dir, agents := modelFixture(t)
	env := []string{"AGENTRY_WORKSPACE=" + dir, "OPENAI_BASE_URL=http://localhost:11434/v1"} // a local server needs no key
	code, out, errOut := cli(t, env, "validate", "--agents", agents)
	want := []string{
		`warning claude.md:4: model "sonnet" (anthropic:claude-sonnet-4-6): anthropic: no API key for api.anthropic.com: set ANTHROPIC_API_KEY; or set models.anthropic.api_key in agentry.yaml; runs on the default model "demo" instead`,
		`warning gemini.md:5: model "Gemini 2.5 Pro (copilot)": not a configured alias, a Claude Code alias, a known model id or display name, or provider:model; runs on the default model "demo" instead`,
		"4 agents in 4 files: 0 errors, 2 warnings",
	}
	if code != 0 || strings.TrimSpace(out) != strings.Join(want, "\n") {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, errOut, out, strings.Join(want, "\n"))
	}
	code, out, _ = cli(t, env, "validate", "--agents", agents, "--json")
	var problems []struct {
		File, Agent, Severity, Message string
		Line                           int
	}
	if err := json.Unmarshal([]byte(out), &problems); err != nil || code != 0 || len(problems) != 2 {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if p := problems[0]; p.File != "claude.md" || p.Agent != "claude" || p.Severity != "warning" || p.Line != 4 {
		t.Fatalf("first problem = %+v", p)
	}
}

func TestValidateSaysWhenTheConfiguredDefaultCannotBeUsed(t *testing.T) {
	dir, agents := modelFixture(t)
	code, out, _ := cli(t, []string{"AGENTRY_WORKSPACE=" + dir, "AGENTRY_MODELS__DEFAULT=haiku"}, "validate", "--agents", agents)
	want := `error agentry.yaml: models.default: model "haiku" (anthropic:claude-haiku-4-5): anthropic: no API key for api.anthropic.com: set ANTHROPIC_API_KEY; or set models.anthropic.api_key in agentry.yaml`
	if code != 1 || !strings.Contains(out, want+"\n") {
		t.Fatalf("exit %d, stdout:\n%s\nwant a line %q", code, out, want)
	}
}

func TestValidateIsQuietAboutModelsThatResolve(t *testing.T) {
	dir, agents := modelFixture(t)
	env := []string{"AGENTRY_WORKSPACE=" + dir, "ANTHROPIC_API_KEY=k", "OPENAI_API_KEY=k", "AGENTRY_MODELS__ALIASES__GEMINI 2.5 PRO (COPILOT)=demo"}
	code, out, _ := cli(t, env, "validate", "--agents", agents)
	if code != 0 || out != "4 agents in 4 files: 0 errors, 0 warnings\n" {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestRunFallsBackToTheDefaultModelAndSaysSo(t *testing.T) {
	dir, agents := modelFixture(t)
	db := filepath.Join(dir, "trace.db")
	env := []string{"AGENTRY_WORKSPACE=" + dir}
	code, out, errOut := cli(t, env, "run", "claude", "hello", "--agents", agents, "--db", db)
	want := `⚠ warning: claude: model "sonnet" (anthropic:claude-sonnet-4-6): anthropic: no API key for api.anthropic.com: set ANTHROPIC_API_KEY; or set models.anthropic.api_key in agentry.yaml; using the default model "demo"` + "\n"
	if code != 0 || !strings.HasPrefix(out, want) {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s\nwant it to start with %q", code, errOut, out, want)
	}
	code, out, errOut = cli(t, env, "run", "gemini", "hello", "--agents", agents, "--db", db, "--json")
	var res struct{ Status string }
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || res.Status != "ok" {
		t.Fatalf("--json: exit %d, stdout %q", code, out)
	}
	if !strings.Contains(errOut, `⚠ warning: gemini: model "Gemini 2.5 Pro (copilot)": not a configured alias`) {
		t.Fatalf("--json: the warning is not on stderr: %q", errOut)
	}
}

func TestRunWithAnExplicitModelThatCannotBeUsedNamesWhatIsMissing(t *testing.T) {
	dir, agents := modelFixture(t)
	code, out, errOut := cli(t, []string{"AGENTRY_WORKSPACE=" + dir}, "run", "plain", "hello", "--agents", agents, "--db", filepath.Join(dir, "t.db"), "--model", "opus")
	want := `agentry: --model: model "opus" (anthropic:claude-opus-4-8): anthropic: no API key for api.anthropic.com: set ANTHROPIC_API_KEY; or set models.anthropic.api_key in agentry.yaml` + "\n"
	if code != 1 || errOut != want {
		t.Fatalf("exit %d, stdout %q, stderr %q; want %q", code, out, errOut, want)
	}
}

func TestAModelListUsesTheFirstNameThisMachineCanUse(t *testing.T) {
	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "picky.agent.md", "---\ndescription: A VS Code agent\nmodel: ['Claude Sonnet 4.5 (copilot)', 'GPT-5 (copilot)']\n---\nYou answer.\n")
	writeFile(t, agents, "stuck.md", "---\nname: stuck\ndescription: Nothing works here\nmodel:\n  - opus\n  - Gemini 2.5 Pro\n---\nYou answer.\n")
	env := []string{"AGENTRY_WORKSPACE=" + dir, "OPENAI_BASE_URL=http://127.0.0.1:1/v1"} // openai needs no key on this machine; anthropic has none
	code, out, _ := cli(t, env, "validate", "--agents", agents)
	want := `warning stuck.md:5: model "opus" (anthropic:claude-opus-4-8): anthropic: no API key for api.anthropic.com: set ANTHROPIC_API_KEY; or set models.anthropic.api_key in agentry.yaml; model "Gemini 2.5 Pro": not a configured alias, a Claude Code alias, a known model id or display name, or provider:model; runs on the default model "demo" instead`
	if code != 0 || !strings.Contains(out, want+"\n") || strings.Contains(out, "picky") {
		t.Fatalf("exit %d:\n%s\nwant only the line %q", code, out, want)
	}
}
