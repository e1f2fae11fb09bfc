package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/delegation/tool/mcp/mcptest"
	"github.com/agentry/agentry/registry/plugin"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// marketDir is the small marketplace with every shape the public ones use
// (registry/plugin/testdata/market), found before any test changes folder.
var marketDir, _ = filepath.Abs("../../registry/plugin/testdata/market")

func fixtureMarket(*testing.T) string { return marketDir }

// installFixture makes dir a project with the fixture marketplace
// installed and returns the plugins folder.
func installFixture(t *testing.T, dir string) string {
	t.Helper()
	t.Chdir(dir)
	writeFile(t, dir, "agents/.keep", "")
	// A plugin without a version is installed with no trailing space.
	if code, out, errOut := cli(t, nil, "plugins", "add", fixtureMarket(t)); code != 0 || !strings.Contains(out, "3 installed, 2 skipped") || !strings.Contains(out, "\ninstalled listed\n") {
		t.Fatalf("plugins add: exit %d\n%s%s", code, out, errOut)
	}
	return filepath.Join(dir, config.DefaultPlugins)
}

func attrList(sp trace.Span, key string) string {
	v, _ := sp.Attributes[key].([]any)
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ",")
}

// TestAnAgentUsesAnInstalledSkillEndToEnd is issue 27's skills case on the
// script model, with the real sandbox: the agent sees the skill's
// description, loads its body, reads its reference file, runs its script
// in bubblewrap, and cannot load a skill its chain denies; the trace shows
// each step.
func TestAnAgentUsesAnInstalledSkillEndToEnd(t *testing.T) {
	dir := t.TempDir()
	plugins := installFixture(t, dir)
	base := filepath.Join(plugins, "docs", "skills", "pdf-forms")
	writeFile(t, dir, "agents/clerk.md", "---\nname: clerk\ndescription: Fills forms.\ntools: [filesystem, shell.run, skill]\nskills: {deny: [csv]}\n---\nYou fill forms.\n")
	writeFile(t, dir, "script.yaml", fmt.Sprintf(`
clerk:
  - calls: [{tool: skill, args: {name: pdf-forms}}]
  - calls: [{tool: filesystem.read_file, args: {path: %q}}]
  - calls: [{tool: shell.run, args: {command: %q}}]
  - calls: [{tool: skill, args: {name: csv}}]
  - say: filled
`, filepath.Join(base, "references", "fields.md"), "sh "+filepath.Join(base, "scripts", "fill.sh")+" form.pdf name=Ann"))
	code, spans := runSpans(t, "clerk", "fill the form", "--model", "script:script.yaml")
	if code != 0 {
		t.Fatalf("run exit %d: %+v", code, spans)
	}
	inv := spansNamed(spans, "invoke_agent clerk")[0]
	if got := attrList(inv, "skills_offered"); got != "bad-skill,pdf-forms" {
		t.Errorf("offered %q: csv is denied, the others are listed", got)
	}
	if got := attrList(inv, "skills_loaded"); got != "pdf-forms" {
		t.Errorf("loaded %q", got)
	}
	steps := spansNamed(spans, "execute_tool skill", "execute_tool filesystem.read_file", "execute_tool shell.run")
	if len(steps) != 4 {
		t.Fatalf("steps: %+v", steps)
	}
	if r := fmt.Sprint(steps[0].Attributes[semconv.AttrToolResult]); steps[0].Status != trace.StatusOK || !strings.Contains(r, "Base directory for this skill: "+base) || !strings.Contains(r, "# Filling PDF forms") {
		t.Errorf("load: %s %s", steps[0].Status, r)
	}
	if r := fmt.Sprint(steps[1].Attributes[semconv.AttrToolResult]); steps[1].Status != trace.StatusOK || !strings.Contains(r, "the applicant's name") {
		t.Errorf("reference: %s %s", steps[1].Status, r)
	}
	var shell struct{ Stdout string }
	json.Unmarshal([]byte(fmt.Sprint(steps[2].Attributes[semconv.AttrToolResult])), &shell)
	if steps[2].Status != trace.StatusOK || strings.TrimSpace(shell.Stdout) != "filled form.pdf with name=Ann" {
		t.Errorf("script: %s %v", steps[2].Status, steps[2].Attributes[semconv.AttrToolResult])
	}
	if steps[3].Status != trace.StatusDenied || !strings.Contains(steps[3].Error, `denied by agent "clerk": deny pattern "csv"`) {
		t.Errorf("denied skill: %s %q", steps[3].Status, steps[3].Error)
	}
}

func TestSkillsListAndValidateCoverTheLibrary(t *testing.T) {
	dir := t.TempDir()
	installFixture(t, dir)
	writeFile(t, dir, "skills/notes/SKILL.md", "---\nname: notes\ndescription: Take notes.\n---\nSee [the template](assets/template.md).\n")
	writeFile(t, dir, "agents/a.md", "---\nname: a\ndescription: d\nskills: [notes, noets]\n---\nx\n")
	code, out, errOut := cli(t, nil, "skills", "list", "--json")
	if code != 0 {
		t.Fatalf("skills list: %d %s", code, errOut)
	}
	var skills []skillJSON
	if err := json.Unmarshal([]byte(out), &skills); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range skills {
		got[s.ID] = s.Plugin + "@" + s.Root
	}
	want := map[string]string{"notes": "@skills", "pdf-forms": "docs@.agentry/plugins", "bad-skill": "docs@.agentry/plugins", "csv": "listed@.agentry/plugins"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("skills %v; want %v", got, want)
	}
	if _, out, _ := cli(t, nil, "skills", "list"); !strings.HasSuffix(out, "\n2 problems in skill and command files: agentry validate lists them\n") {
		t.Errorf("skills list does not count the problems:\n%s", out)
	}
	os.RemoveAll(filepath.Join(dir, "skills/notes"))
	if _, out, _ := cli(t, nil, "skills", "list"); !strings.HasSuffix(out, "\n1 problem in skill and command files: agentry validate lists them\n") {
		t.Errorf("skills list does not count one problem as one:\n%s", out)
	}
	writeFile(t, dir, "skills/notes/SKILL.md", "---\nname: notes\ndescription: Take notes.\n---\nSee [the template](assets/template.md).\n")
	code, out, _ = cli(t, nil, "validate")
	for _, w := range []string{
		"warning skills/notes/SKILL.md:5: link to \"assets/template.md\": the skill's folder has no such file",
		"warning a.md:4: skills names \"noets\", but no skill has that id",
		"warning .agentry/plugins/docs/skills/Bad_Skill/SKILL.md:2: name \"Bad_Skill\" breaks the Agent Skills rule",
		"4 agents, 4 skills, 2 commands in 10 files: 0 errors, 3 warnings",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("validate output lacks %q:\n%s", w, out)
		}
	}
	if code != 0 {
		t.Errorf("validate exit %d: warnings only", code)
	}
}

func TestPluginsListJSONCountsWhatEachPluginHolds(t *testing.T) {
	installFixture(t, t.TempDir())
	code, out, errOut := cli(t, nil, "plugins", "list", "--json")
	if code != 0 {
		t.Fatalf("%d %s", code, errOut)
	}
	var list []struct {
		Name, Version, Source                    string
		Agents, Skills, Commands, Hooks, Servers int
	}
	if err := json.Unmarshal([]byte(strings.ReplaceAll(out, "mcp_servers", "servers")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[0].Name != "docs" || list[0].Agents != 2 || list[0].Skills != 2 || list[0].Commands != 1 || list[0].Hooks != 1 || list[0].Servers != 1 || list[0].Source != fixtureMarket(t) {
		t.Errorf("list %+v", list)
	}
	if code, out, _ := cli(t, nil, "plugins", "remove", "listed"); code != 0 || !strings.Contains(out, "removed plugin listed") {
		t.Errorf("remove: %d %s", code, out)
	}
	if code, _, errOut := cli(t, nil, "plugins", "remove", "listed"); code == 0 || !strings.Contains(errOut, `plugin "listed" is not installed (installed: docs, git-tools)`) {
		t.Errorf("remove again: %d %s", code, errOut)
	}
}

// TestAPluginsHooksRunOnlyOnceAPersonEnablesThem installs the fixture,
// whose docs plugin has a PreToolUse hook on Bash that blocks: a shell
// call runs while the hook is disabled, is blocked by it once enabled.
func TestAPluginsHooksRunOnlyOnceAPersonEnablesThem(t *testing.T) {
	dir := t.TempDir()
	installFixture(t, dir)
	writeFile(t, dir, "agents/runner.md", "---\nname: runner\ndescription: Runs.\ntools: [shell.run]\n---\nRun it.\n")
	writeFile(t, dir, "script.yaml", "runner:\n  - calls: [{tool: shell.run, args: {command: \"echo hi\"}}]\n  - say: done\n")
	shellSpan := func() trace.Span {
		t.Helper()
		_, spans := runSpans(t, "runner", "go", "--model", "script:script.yaml")
		return spansNamed(spans, "execute_tool shell.run")[0]
	}
	if sp := shellSpan(); sp.Status != trace.StatusOK {
		t.Fatalf("with the hook disabled the call runs: %s %s", sp.Status, sp.Error)
	}
	code, out, _ := cli(t, nil, "plugins", "enable", "docs", "--hooks")
	if code != 1 || !strings.Contains(out, "PreToolUse Bash: sh "+filepath.Join(dir, config.DefaultPlugins, "docs", "hooks", "check.sh")) || !strings.Contains(out, "--yes") {
		t.Fatalf("enable without --yes shows what would run and asks: %d\n%s", code, out)
	}
	if sp := shellSpan(); sp.Status != trace.StatusOK {
		t.Fatalf("shown, not enabled: %s %s", sp.Status, sp.Error)
	}
	if code, out, _ := cli(t, nil, "plugins", "enable", "docs", "--hooks", "--yes"); code != 0 || !strings.Contains(out, "enabled hooks of plugin docs") {
		t.Fatalf("enable --yes: %d %s", code, out)
	}
	if sp := shellSpan(); sp.Status != trace.StatusDenied || !strings.Contains(sp.Error, "docs plugin hook saw a shell command") {
		t.Fatalf("enabled, the hook blocks: %s %q", sp.Status, sp.Error)
	}
}

func TestRunACommandWithItsArgumentsAndPermissions(t *testing.T) {
	dir := t.TempDir()
	installFixture(t, dir)
	writeFile(t, dir, "script.yaml", `
/docs.review:
  - calls: [{tool: shell.run, args: {command: "echo not allowed"}}]
  - calls: [{tool: delegate, args: {agent: docs.reviewer, task: "read report.md"}}]
  - say: reviewed
docs.reviewer:
  - say: clear enough
`)
	code, spans := runSpans(t, "--command", "docs:review", "report.md carefully", "--model", "script:script.yaml")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	root := spansNamed(spans, "invoke_agent /docs.review")[0]
	if task := fmt.Sprint(root.Attributes[semconv.AttrTask]); !strings.HasPrefix(task, "Review the document report.md for clarity. Everything the person asked: report.md carefully") {
		t.Errorf("task %q", task)
	}
	if sp := spansNamed(spans, "execute_tool shell.run")[0]; sp.Status != trace.StatusDenied {
		t.Errorf("shell.run is not in the command's allowed-tools: %s", sp.Status)
	}
	if sp := spansNamed(spans, "invoke_agent docs.reviewer"); len(sp) != 1 || sp[0].Status != trace.StatusOK {
		t.Errorf("Task in allowed-tools lets it delegate: %+v", sp)
	}
	code, _, errOut := cli(t, nil, "run", "--command", "reviw", "x")
	if code == 0 || !strings.Contains(errOut, `unknown command "reviw"`) || !strings.Contains(errOut, "docs.review, git-tools.review") {
		t.Errorf("an unknown command: %d %s", code, errOut)
	}
	// Its agent was made for the run: the run is not continued or replayed
	// as an agent's would be (that said "unknown agent").
	for _, args := range [][]string{{"--continue", root.RunID, "and more"}, {"--continue", root.RunID}, {"--replay", root.RunID}} {
		code, _, errOut := cli(t, nil, append([]string{"run"}, args...)...)
		if code != 1 || !strings.Contains(errOut, "a run of the slash command docs.review cannot be") || !strings.Contains(errOut, `run the command again: agentry run --command docs.review "ARGS"`) {
			t.Errorf("run %v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// TestAPluginsMCPServerStartsOnlyOnceAPersonEnablesIt installs a plugin
// whose .mcp.json starts the npm reference server: its tools do not exist
// until the plugin's servers are enabled, then a call reaches the server.
func TestAPluginsMCPServerStartsOnlyOnceAPersonEnablesIt(t *testing.T) {
	srv := mcptest.Everything(t, "everything")
	src := t.TempDir()
	writeFile(t, src, ".claude-plugin/plugin.json", `{"name": "echoes", "version": "1.0.0"}`)
	writeFile(t, src, ".mcp.json", fmt.Sprintf(`{"mcpServers": {"everything": {"command": %q, "args": [%q]}}}`, srv.Command, srv.Args[0]))
	dir := t.TempDir()
	t.Chdir(dir)
	writeFile(t, dir, "agents/echoer.md", "---\nname: echoer\ndescription: Echoes\ntools: [everything.echo]\n---\nEcho.\n")
	writeFile(t, dir, "script.yaml", "echoer:\n  - calls: [{tool: everything.echo, args: {message: hi from a plugin}}]\n  - say: echoed\n")
	if code, out, errOut := cli(t, nil, "plugins", "add", src); code != 0 {
		t.Fatalf("add: %d %s %s", code, out, errOut)
	}
	echo := func() trace.Span {
		t.Helper()
		_, spans := runSpans(t, "echoer", "echo", "--model", "script:script.yaml")
		return spansNamed(spans, "execute_tool everything.echo")[0]
	}
	if sp := echo(); sp.Status == trace.StatusOK {
		t.Fatalf("the server ran before it was enabled: %v", sp.Attributes[semconv.AttrToolResult])
	}
	if code, out, _ := cli(t, nil, "plugins", "enable", "echoes", "--mcp", "--yes"); code != 0 || !strings.Contains(out, "everything: node "+srv.Args[0]) {
		t.Fatalf("enable: %d\n%s", code, out)
	}
	if sp := echo(); sp.Status != trace.StatusOK || !strings.Contains(fmt.Sprint(sp.Attributes[semconv.AttrToolResult]), "hi from a plugin") {
		t.Fatalf("enabled: %s %v %s", sp.Status, sp.Attributes[semconv.AttrToolResult], sp.Error)
	}
}

// TestAPluginsConsentScreenSaysWhichHooksNeverRun: the list shows each hook
// in its file's words with its own condition, and marks an event agentry
// has no point for, and a matcher or condition naming no agentry tool,
// rather than asking consent for a command that never runs.
func TestAPluginsConsentScreenSaysWhichHooksNeverRun(t *testing.T) {
	var out strings.Builder
	printRuns(&out, plugin.Locked{Name: "guard"}, []plugin.Hook{
		{Event: "PostToolUse", Matcher: "Bash", If: "Bash(git commit *)", Command: "./commit.sh"},
		{Event: "SessionStart", Command: "./hello.sh"},
		{Event: "PreToolUse", Matcher: "NotebookEdit", Command: "./nb.sh"},
		{Event: "PreToolUse", Matcher: "Edit|NotebookEdit", Command: "./edit.sh"},
		{Event: "PreToolUse", Matcher: "Bash", If: "LSP(x)", Command: "./lsp.sh"},
		{Event: "PreToolUse", Matcher: "github/create_issue", Command: "./gh.sh"},
	}, nil)
	for _, want := range []string{"  PostToolUse Bash if Bash(git commit *): ./commit.sh\n",
		"  SessionStart *: ./hello.sh (never run: agentry has no SessionStart point)\n",
		"  PreToolUse NotebookEdit: ./nb.sh (never run: not available in agentry: NotebookEdit)\n",
		"  PreToolUse Edit|NotebookEdit: ./edit.sh\n",
		"  PreToolUse Bash if LSP(x): ./lsp.sh (never run: its if, LSP(x), is not available in agentry)\n",
		// an MCP server's tool runs once that server is configured
		"  PreToolUse github/create_issue: ./gh.sh\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
}
