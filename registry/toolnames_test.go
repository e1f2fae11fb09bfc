package registry

import (
	"bufio"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// knownWithServers is what a configuration with two MCP servers knows.
var knownWithServers = append(slices.Clone(BuiltinTools), "github.*", "neo4j.*")

func TestEveryTableRowMapsToABuiltinDelegationOrAWarning(t *testing.T) {
	known := append(slices.Clone(BuiltinTools), permissionOnlyTools...)
	for _, r := range toolTable {
		t.Run(r.name, func(t *testing.T) {
			got := mapTool(r.name, BuiltinTools, r.dialect) // a row is a name of its own dialect
			if got.dialect != r.dialect {
				t.Errorf("dialect %v, want %v", got.dialect, r.dialect)
			}
			kinds := 0
			for _, b := range []bool{len(got.Tools) > 0, got.Delegate, got.Unavailable} {
				if b {
					kinds++
				}
			}
			if kinds != 1 {
				t.Fatalf("%+v: want exactly one of tools, delegation, unavailable", got)
			}
			for _, tool := range got.Tools {
				if !matchesAny(tool, known) {
					t.Errorf("%s maps to %q, which is no built-in tool", r.name, tool)
				}
			}
			if got.Unavailable && got.Reason == "" {
				t.Errorf("%s is unavailable without a reason", r.name)
			}
		})
	}
}

func TestMapToolReadsEveryForm(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		delegate bool
		targets  []string
		dialect  toolDialect
	}{
		{"Claude Code Read", "Read", []string{readFile}, false, nil, dialectClaude},
		{"Claude Code MultiEdit edits", "MultiEdit", []string{editFile}, false, nil, dialectClaude},
		{"Claude Code Bash runs the shell", "Bash", []string{shellRun}, false, nil, dialectClaude},
		{"Bash(git:*) becomes a command pattern", "Bash(git:*)", []string{"shell.run(git *)"}, false, nil, dialectClaude},
		{"Bash(npm run test:*) keeps its words", "Bash(npm run test:*)", []string{"shell.run(npm run test *)"}, false, nil, dialectClaude},
		{"Bash(git status) stays exact", "Bash(git status)", []string{"shell.run(git status)"}, false, nil, dialectClaude},
		{"WebSearch searches", "WebSearch", []string{webSearch}, false, nil, dialectClaude},
		{"TodoWrite keeps a checklist", "TodoWrite", []string{todoWrite}, false, nil, dialectClaude},
		{"Task delegates", "Task", nil, true, nil, dialectClaude},
		{"Agent delegates", "Agent", nil, true, nil, dialectClaude},
		{"Agent(a, b) limits the targets", "Agent(planner, coder)", nil, true, []string{"planner", "coder"}, dialectClaude},
		{"mcp__server__tool is a server tool", "mcp__github__create_issue", []string{"github.create_issue"}, false, nil, dialectClaude},
		{"mcp__server is the whole server", "mcp__github", []string{"github"}, false, nil, dialectClaude},
		{"a VS Code tool set", "edit", []string{editFile, writeFile}, false, nil, dialectVSCode},
		{"VS Code execute runs the shell", "execute", []string{shellRun}, false, nil, dialectVSCode},
		{"VS Code agent delegates", "agent", nil, true, nil, dialectVSCode},
		{"VS Code runSubagent delegates", "runSubagent", nil, true, nil, dialectVSCode},
		{"a qualified VS Code tool", "search/fileSearch", []string{globTool}, false, nil, dialectVSCode},
		{"runCommands is the shell", "runCommands", []string{shellRun}, false, nil, dialectVSCode},
		{"runInTerminal is the shell", "execute/runInTerminal", []string{shellRun}, false, nil, dialectVSCode},
		{"todos is the checklist", "todos", []string{todoWrite}, false, nil, dialectVSCode},
		{"server/* is every tool of a server", "github/*", []string{"github.*"}, false, nil, dialectVSCode},
		{"server/tool of a configured server", "github/create_issue", []string{"github.create_issue"}, false, nil, dialectVSCode},
		{"a configured server by name", "neo4j", []string{"neo4j"}, false, nil, dialectAgentry},
		{"agentry names stay", "filesystem.read_*", []string{"filesystem.read_*"}, false, nil, dialectAgentry},
		{"agentry command patterns stay", "shell.run(git *)", []string{"shell.run(git *)"}, false, nil, dialectAgentry},
		{"shell.network is a permission", "shell.network", []string{"shell.network"}, false, nil, dialectAgentry},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := MapTool(tc.in, knownWithServers)
			if got.Unavailable || !slices.Equal(got.Tools, tc.want) || got.Delegate != tc.delegate ||
				!slices.Equal(got.Targets, tc.targets) || got.dialect != tc.dialect {
				t.Fatalf("MapTool(%q) = %+v", tc.in, got)
			}
		})
	}
}

func TestNamesAgentryHasNothingForAreUnavailable(t *testing.T) {
	for _, name := range []string{
		"search/codebase",        // a VS Code tool, not an MCP server "search"
		"read/terminalSelection", // a member without an agentry tool
		"search/noSuchTool",      // an unknown member of a known set
		"codebase", "problems", "usages", "changes", "githubRepo", "terminalLastCommand",
		"NotebookEdit", "BashOutput", "KillShell", "KillBash",
		"Read(./src/**)",                        // agentry cannot narrow Read to a path
		"context7/resolve",                      // an MCP tool of a server not configured
		"context7",                              // a bare name that is no configured server
		"ms-python.python/installPythonPackage", // a VS Code extension's tool
		"microsoft.docs.mcp/*",                  // no agentry group can hold dots
		"subagent-catalog:fetch",
	} {
		t.Run(name, func(t *testing.T) {
			got := MapTool(name, knownWithServers)
			if len(got.Tools) > 0 && !got.Narrowed || !got.Unavailable && !got.Narrowed || got.Delegate {
				t.Fatalf("MapTool(%q) = %+v, want unavailable", name, got)
			}
		})
	}
}

// The public collections' tool names (names only, gathered from
// github/awesome-copilot and VoltAgent/awesome-claude-code-subagents) map
// to built-in tools, delegation, explicit MCP forms or the warning: none
// becomes a tool name agentry does not have.
func TestPublicCollectionNamesMapToNoInventedTool(t *testing.T) {
	f, err := os.Open("testdata/public-tool-names.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	known := append(slices.Clone(BuiltinTools), permissionOnlyTools...)
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		name := sc.Text()
		if name == "" || strings.HasPrefix(name, "#") {
			continue
		}
		n++
		got := MapTool(name, BuiltinTools)
		for _, tool := range got.Tools {
			if matchesAny(tool, known) {
				continue
			}
			server, _, _ := strings.Cut(strings.TrimPrefix(name, "mcp__"), "__")
			explicitMCP := strings.HasPrefix(name, "mcp__") || strings.HasSuffix(name, "/*")
			server, _, _ = strings.Cut(server, "/")
			if !explicitMCP || (tool != server+".*" && !strings.HasPrefix(tool, server+".") && tool != server) {
				t.Errorf("%q maps to %q, a tool agentry does not have", name, tool)
			}
		}
		if !got.Delegate && !got.Unavailable && len(got.Tools) == 0 {
			t.Errorf("%q maps to nothing without a warning", name)
		}
	}
	if n < 200 {
		t.Fatalf("read %d names, want the whole list", n)
	}
}

func TestDecodingRecordsDelegationEntries(t *testing.T) {
	tests := []struct {
		name, file, text string
		want             ToolDelegation
		allow            []string
	}{
		{"Claude Code Task", "a.md", "---\nname: a\ndescription: A\ntools: Read, Task\n---\n",
			ToolDelegation{Listed: true}, []string{readFile}},
		{"Agent(a, b) limits targets", "a.md", "---\nname: a\ndescription: A\ntools: Agent(b, c), Bash(git:*)\n---\n",
			ToolDelegation{Listed: true, Targets: []string{"b", "c"}}, []string{"shell.run(git *)"}},
		{"a bare Agent lifts the limit", "a.md", "---\nname: a\ndescription: A\ntools: Agent(b), Agent\n---\n",
			ToolDelegation{Listed: true}, []string{}},
		{"VS Code agent tool set", "a.agent.md", "---\ndescription: A\ntools: ['agent', 'search/codebase', 'edit']\n---\n",
			ToolDelegation{Listed: true}, []string{editFile, writeFile}},
		{"disallowed Task", "a.md", "---\nname: a\ndescription: A\ndisallowedTools: Task\n---\n",
			ToolDelegation{Denied: true}, nil},
		{"disallowed Agent(b) refuses only b", "a.md", "---\nname: a\ndescription: A\ntools: Read, Agent\ndisallowedTools: Agent(b)\n---\n",
			ToolDelegation{Listed: true, DeniedTargets: []string{"b"}}, []string{readFile}},
		// A Claude Code or VS Code allow list without their delegation tool
		// is all the agent may use: no delegating (Refused).
		{"a Claude Code list without Task", "a.md", "---\nname: a\ndescription: A\ntools: Read, Grep\n---\n",
			ToolDelegation{Refused: "its tools list names no Task or Agent"}, []string{readFile, grepTool}},
		{"a Claude Code YAML list without Task", "a.md", "---\nname: a\ndescription: A\ntools: [Read, web.fetch]\n---\n",
			ToolDelegation{Refused: "its tools list names no Task or Agent"}, []string{readFile, webFetch}},
		// VS Code's web set fetches pages; it has no web search, which
		// agentry's group web of the same name has.
		{"VS Code's web is fetch only", "a.agent.md", "---\ndescription: A\ntools: ['web', 'agent']\n---\n",
			ToolDelegation{Listed: true}, []string{webFetch}},
		{"a VS Code file without agent", "a.agent.md", "---\ndescription: A\ntools: ['filesystem/*']\n---\n",
			ToolDelegation{Refused: "its tools list names no agent or runSubagent"}, []string{"filesystem.*"}},
		{"an empty string is Claude Code's empty list", "a.md", "---\nname: a\ndescription: A\ntools: \"\"\n---\n",
			ToolDelegation{Refused: "its tools list names no Task or Agent"}, []string{}},
		{"an empty list in a Claude Code folder", ".claude/agents/a.md", "---\nname: a\ndescription: A\ntools: []\n---\n",
			ToolDelegation{Refused: "its tools list names no Task or Agent"}, []string{}},
		{"an empty list beside disallowedTools", "a.md", "---\nname: a\ndescription: A\ntools: []\ndisallowedTools: Write\n---\n",
			ToolDelegation{Refused: "its tools list names no Task or Agent"}, []string{}},
		{"an empty list in a VS Code file", "a.agent.md", "---\ndescription: A\ntools: []\n---\n",
			ToolDelegation{Refused: "its tools list names no agent or runSubagent"}, []string{}},
		{"VS Code's agents: [] means no sub-agents at all", "a.agent.md", "---\ndescription: A\ntools: ['read', 'agent']\nagents: []\n---\n",
			ToolDelegation{Listed: true, Refused: "its agents list is empty"}, []string{readFile}},
		{"subagents' allow: [] leaves general-purpose and dispatch", "a.md", "---\nname: a\ndescription: A\nsubagents: {allow: []}\n---\n",
			ToolDelegation{}, nil},
		{"a star is every tool, Task too", "a.md", "---\nname: a\ndescription: A\ntools: \"Read, *\"\n---\n",
			ToolDelegation{}, []string{readFile, "*"}},
		// agentry's own lists say nothing of delegating: subagents decides.
		{"an agentry list", "a.md", "---\nname: a\ndescription: A\ntools:\n  allow: [filesystem, web]\nsubagents: {allow: [b]}\n---\n",
			ToolDelegation{}, []string{"filesystem", "web"}},
		{"an agentry plain list", "a.md", "---\nname: a\ndescription: A\ntools: [web.fetch, todo]\n---\n",
			ToolDelegation{}, []string{webFetch, "todo"}},
		{"an empty agentry list", "a.md", "---\nname: a\ndescription: A\ntools: []\n---\n",
			ToolDelegation{}, []string{}},
		{"no tools list", "a.md", "---\nname: a\ndescription: A\ntools:\n---\n",
			ToolDelegation{}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(tc.file, []byte(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			a, _ := d.Agent()
			if a.Delegation.Listed != tc.want.Listed || a.Delegation.Denied != tc.want.Denied || a.Delegation.Refused != tc.want.Refused ||
				!slices.Equal(a.Delegation.Targets, tc.want.Targets) || !slices.Equal(a.Delegation.DeniedTargets, tc.want.DeniedTargets) {
				t.Fatalf("delegation = %+v, want %+v", a.Delegation, tc.want)
			}
			if !slices.Equal(a.Tools.Allow, tc.allow) {
				t.Fatalf("allow = %v, want %v", a.Tools.Allow, tc.allow)
			}
		})
	}
}

// Task in an ask list asks before delegating (subagents ask); it lists no
// delegation tool, since ask never widens what allow lets through.
func TestADelegationNameInAnAskListAsksBeforeDelegating(t *testing.T) {
	for _, tc := range []struct {
		text string
		ask  []string
		want ToolDelegation
	}{
		{"tools:\n  allow: [Read]\n  ask: [Task]\n", []string{"*"}, ToolDelegation{Refused: "its tools list names no Task or Agent"}},
		{"tools:\n  allow: [Read, Task]\n  ask: [\"Agent(b, c)\"]\n", []string{"b", "c"}, ToolDelegation{Listed: true}},
	} {
		d, err := Parse("a.md", []byte("---\nname: a\ndescription: A\n"+tc.text+"---\n"))
		if err != nil {
			t.Fatal(err)
		}
		a, _ := d.Agent()
		if !slices.Equal(a.Subagents.Rules.Ask, tc.ask) || a.Delegation.Listed != tc.want.Listed || a.Delegation.Refused != tc.want.Refused || a.Delegation.Targets != nil {
			t.Errorf("%q: subagents ask %v, delegation %+v; want ask %v, %+v", tc.text, a.Subagents.Rules.Ask, a.Delegation, tc.ask, tc.want)
		}
	}
}

func TestUnavailableNamesWarnWithTheirName(t *testing.T) {
	d, _ := Parse("a.agent.md", []byte("---\ndescription: A\ntools:\n  - search/codebase\n  - readFile\n---\n"))
	a, probs := d.Agent()
	if !slices.Equal(a.Tools.Allow, []string{readFile}) {
		t.Fatalf("allow = %v", a.Tools.Allow)
	}
	if len(probs) != 1 || probs[0].Line != 4 || probs[0].Severity != SeverityWarning ||
		!strings.Contains(probs[0].Message, "not available in agentry: search/codebase") {
		t.Fatalf("problems = %v", probs)
	}
}

func TestANarrowedDenyDeniesTheWholeTool(t *testing.T) {
	d, _ := Parse("a.md", []byte("---\nname: a\ndescription: A\ndisallowedTools: Read(./secrets/**)\n---\n"))
	a, probs := d.Agent()
	if !slices.Equal(a.Tools.Deny, []string{readFile}) || len(probs) != 1 || !strings.Contains(probs[0].Message, "whole tool is denied") {
		t.Fatalf("deny %v, problems %v", a.Tools.Deny, probs)
	}
}

// docs/tools.md is the table as a page: every row is listed there with
// what it means and its note (which the page may follow with a link), and
// the page states the table's size.
func TestToolsPageListsEveryRow(t *testing.T) {
	page, err := os.ReadFile("../docs/tools.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	for _, r := range toolTable {
		var means string
		switch {
		case r.delegate:
			means = "delegation"
		case len(r.tools) == 0:
			means = "not available"
		default:
			means = "`" + strings.Join(r.tools, "`, `") + "`"
		}
		if row := "| `" + r.name + "` | " + means + " | " + r.note; !strings.Contains(text, row) {
			t.Errorf("docs/tools.md has no row %q", row)
		}
	}
	if !strings.Contains(text, strconv.Itoa(len(toolTable))+" rows") {
		t.Errorf("docs/tools.md does not state the table's size, %d rows", len(toolTable))
	}
}

// BenchmarkMapToolPublicNames maps every tool name of the public
// collections once per iteration; ns/name is the cost a loader pays per
// tool entry.
func BenchmarkMapToolPublicNames(b *testing.B) {
	data, err := os.ReadFile("testdata/public-tool-names.txt")
	if err != nil {
		b.Fatal(err)
	}
	var names []string
	for _, l := range strings.Split(string(data), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			names = append(names, l)
		}
	}
	for b.Loop() {
		for _, n := range names {
			MapTool(n, knownWithServers)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(names)), "ns/name")
}

// TestDottedNameAgreesWithTheRegexp checks MapTool's shortcut for group.tool
// against agentryName, which it stands in for.
func TestDottedNameAgreesWithTheRegexp(t *testing.T) {
	for _, name := range []string{"web.fetch", "filesystem.read_file", "a.b", "a-b.c_d", "9x.y", "_a.b", "-a.b",
		"a.", ".b", "a.b.c", "a*.b", "a.b?", "a.b(x)", "a b.c", "web", "a..b", "é.b", "a.b-"} {
		m := agentryName.FindStringSubmatch(name)
		want := m != nil && m[2] != "" && m[3] == "" && !strings.ContainsAny(name, "*?")
		if got := dottedName(name); got && !want {
			t.Errorf("dottedName(%q) = true, but agentryName reads it otherwise (%q)", name, m)
		} else if !got && want {
			t.Errorf("dottedName(%q) = false for a plain group.tool", name)
		}
	}
}
