package registry

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// dialectCase edits one tool field through agentry names, as the web
// editor does, and expects only that field's line(s) to change.
type dialectCase struct {
	name      string
	key       string
	value     []string // agentry names, as the form sends them
	wantField string   // the field's new text; "" means the file is unchanged
}

func runDialectCases(t *testing.T, file, src, oldField string, known []string, cases []dialectCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(file, []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			d.known = known
			if err := d.Set(tc.key, tc.value); err != nil {
				t.Fatal(err)
			}
			want := src
			if tc.wantField != "" {
				want = strings.Replace(src, oldField, tc.wantField, 1)
			}
			if got := string(d.Bytes()); got != want {
				t.Fatalf("got:\n%s\nwant:\n%s", got, want)
			}
			// What the editor shows after saving is what it sent.
			a, _, _ := d.decode(known)
			got := a.Tools.Allow
			if tc.key == "tools.deny" {
				got = a.Tools.Deny
			}
			if !slices.Equal(got, tc.value) && !(len(got) == 0 && len(tc.value) == 0) {
				t.Fatalf("%s reads back as %v, want %v", tc.key, got, tc.value)
			}
		})
	}
}

func TestClaudeCodeCommaStringsKeepClaudeCodeNames(t *testing.T) {
	const src = "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Task, Grep, Bash(git:*)   # what it uses\nmodel: sonnet\n---\nReview.\n"
	const field = "tools: Read, Task, Grep, Bash(git:*)   # what it uses\n"
	runDialectCases(t, ".claude/agents/reviewer.md", src, field, knownWithServers, []dialectCase{
		{"removing one chip drops its name", "tools.allow", []string{readFile, "shell.run(git *)"},
			"tools: Read, Task, Bash(git:*)   # what it uses\n"},
		{"adding one writes the Claude Code name", "tools.allow", []string{readFile, grepTool, "shell.run(git *)", webSearch},
			"tools: Read, Task, Grep, Bash(git:*), WebSearch   # what it uses\n"},
		{"adding a command pattern writes Bash(...:*)", "tools.allow", []string{readFile, grepTool, "shell.run(git *)", "shell.run(npm run test *)"},
			"tools: Read, Task, Grep, Bash(git:*), Bash(npm run test:*)   # what it uses\n"},
		{"adding an MCP tool writes mcp__server__tool", "tools.allow", []string{readFile, grepTool, "shell.run(git *)", "github.create_issue"},
			"tools: Read, Task, Grep, Bash(git:*), mcp__github__create_issue   # what it uses\n"},
		{"reordering reorders the names", "tools.allow", []string{grepTool, readFile, "shell.run(git *)"},
			"tools: Grep, Read, Task, Bash(git:*)   # what it uses\n"},
		{"no change leaves the file as it is", "tools.allow", []string{readFile, grepTool, "shell.run(git *)"}, ""},
		{"a deny list becomes disallowedTools", "tools.deny", []string{writeFile, editFile},
			field + "disallowedTools: Write, Edit\n"},
	})
}

func TestClaudeCodeDisallowedToolsKeepTheirSpelling(t *testing.T) {
	const src = "---\nname: writer\ndescription: Writes\ndisallowedTools: Write, MultiEdit, Task\n---\n"
	const field = "disallowedTools: Write, MultiEdit, Task\n"
	runDialectCases(t, "writer.md", src, field, nil, []dialectCase{
		{"removing one keeps the others as written", "tools.deny", []string{editFile}, "disallowedTools: MultiEdit, Task\n"},
		{"adding one", "tools.deny", []string{writeFile, editFile, webFetch}, "disallowedTools: Write, MultiEdit, Task, WebFetch\n"},
		{"emptying keeps what the form cannot show", "tools.deny", []string{}, "disallowedTools: Task\n"},
		{"no change", "tools.deny", []string{writeFile, editFile}, ""},
	})
}

func TestVSCodeListsKeepVSCodeNames(t *testing.T) {
	const src = "---\ndescription: Plans\ntools: ['codebase', 'search/fileSearch', 'edit', 'runCommands', 'github/*']\nmodel: GPT-5 (copilot)\n---\nPlan.\n"
	const field = "tools: ['codebase', 'search/fileSearch', 'edit', 'runCommands', 'github/*']\n"
	all := []string{globTool, editFile, writeFile, shellRun, "github.*"}
	runDialectCases(t, "planner.agent.md", src, field, knownWithServers, []dialectCase{
		{"removing a tool of a set writes the set's remaining tool", "tools.allow", []string{globTool, editFile, shellRun, "github.*"},
			"tools: ['codebase', 'search/fileSearch', 'edit/editFiles', 'runCommands', 'github/*']\n"},
		{"removing a whole entry", "tools.allow", []string{globTool, editFile, writeFile, "github.*"},
			"tools: ['codebase', 'search/fileSearch', 'edit', 'github/*']\n"},
		{"adding one writes the qualified VS Code name", "tools.allow", append(slices.Clone(all), webFetch),
			"tools: ['codebase', 'search/fileSearch', 'edit', 'runCommands', 'github/*', 'web/fetch']\n"},
		{"adding a server tool writes server/tool", "tools.allow", append(slices.Clone(all), "neo4j.query"),
			"tools: ['codebase', 'search/fileSearch', 'edit', 'runCommands', 'github/*', 'neo4j/query']\n"},
		{"reordering", "tools.allow", []string{shellRun, globTool, editFile, writeFile, "github.*"},
			"tools: ['codebase', 'runCommands', 'search/fileSearch', 'edit', 'github/*']\n"},
		{"no change", "tools.allow", all, ""},
	})
}

func TestPlainVSCodeNamesStayPlain(t *testing.T) {
	const src = "---\ndescription: Old chat mode\ntools:\n  - codebase   # semantic search\n  - editFiles\n  - fetch\n---\n"
	const field = "tools:\n  - codebase   # semantic search\n  - editFiles\n  - fetch\n"
	runDialectCases(t, "old.chatmode.md", src, field, nil, []dialectCase{
		{"removing one", "tools.allow", []string{editFile}, "tools:\n  - codebase   # semantic search\n  - editFiles\n"},
		{"adding one writes the plain name", "tools.allow", []string{editFile, webFetch, grepTool, todoWrite},
			"tools:\n  - codebase   # semantic search\n  - editFiles\n  - fetch\n  - textSearch\n  - todos\n"},
		{"reordering", "tools.allow", []string{webFetch, editFile}, "tools:\n  - codebase   # semantic search\n  - fetch\n  - editFiles\n"},
		{"no change", "tools.allow", []string{editFile, webFetch}, ""},
	})
}

// VS Code's web set is web.fetch alone: keeping it keeps fetch, and the
// search agentry's group web adds is written as agentry's own name.
func TestVSCodesWebSetKeepsItsMeaning(t *testing.T) {
	const src = "---\ndescription: R\ntools: ['read', 'web']\n---\n"
	runDialectCases(t, "r.agent.md", src, "tools: ['read', 'web']\n", nil, []dialectCase{
		{"no change", "tools.allow", []string{readFile, webFetch}, ""},
		{"removing fetch removes the set", "tools.allow", []string{readFile}, "tools: ['read']\n"},
	})
}

func TestAgentryListsKeepAgentryNames(t *testing.T) {
	const src = "---\nname: a\ndescription: A\ntools:\n  allow: [web, filesystem.read_file, Task]\n---\n"
	const field = "  allow: [web, filesystem.read_file, Task]\n"
	runDialectCases(t, "a.md", src, field, nil, []dialectCase{
		{"removing one", "tools.allow", []string{"web"}, "  allow: [web, Task]\n"},
		{"adding one", "tools.allow", []string{"web", readFile, shellRun}, "  allow: [web, filesystem.read_file, Task, shell.run]\n"},
		{"reordering keeps a hidden entry after its predecessor", "tools.allow", []string{readFile, "web"}, "  allow: [filesystem.read_file, Task, web]\n"},
		{"no change", "tools.allow", []string{"web", readFile}, ""},
	})
}

// web, todo and shell are agentry's groups as well as VS Code's names: a
// list of agentry names that has them is still agentry's (writtenFor).
func TestAgentryGroupsSpelledLikeVSCodeStayAgentry(t *testing.T) {
	const src = "---\nname: pm\ndescription: A\ntools:\n  allow: [filesystem, web]\n---\n"
	runDialectCases(t, "pm.md", src, "  allow: [filesystem, web]\n", nil, []dialectCase{
		{"adding one", "tools.allow", []string{"filesystem", "web", todoWrite}, "  allow: [filesystem, web, todo.write]\n"},
	})
}

func TestAListCommentSurvivesRemovingTheItemUnderIt(t *testing.T) {
	const src = "---\ndescription: E\ntools:\n  # Standard tools\n  - read\n  - edit\n  # The server's tools\n  - elastic/*\n---\n"
	runDialectCases(t, "e.agent.md", src, "tools:\n  # Standard tools\n  - read\n  - edit\n  # The server's tools\n  - elastic/*\n", nil, []dialectCase{
		{"removing the first item", "tools.allow", []string{editFile, writeFile, "elastic.*"},
			"tools:\n  # Standard tools\n  - edit\n  # The server's tools\n  - elastic/*\n"},
		{"the comment over a removed last item goes with it", "tools.allow", []string{readFile, editFile, writeFile},
			"tools:\n  # Standard tools\n  - read\n  - edit\n"},
	})
}

func TestAnUnconfiguredServerIsKeptAsWritten(t *testing.T) {
	// context7/resolve is not a chip here (no such server configured), so
	// removing another tool must not drop it.
	const src = "---\ndescription: D\ntools: [context7/resolve, readFile, editFiles]\n---\n"
	runDialectCases(t, "d.agent.md", src, "tools: [context7/resolve, readFile, editFiles]\n", BuiltinTools, []dialectCase{
		{"removing another tool", "tools.allow", []string{readFile}, "tools: [context7/resolve, readFile]\n"},
	})
}

func TestNewToolFieldsTakeTheFilesDialect(t *testing.T) {
	tests := []struct {
		name, file, src, key string
		value                []string
		want                 string
	}{
		{"a Claude Code agent gets a comma string", ".claude/agents/a.md", "---\nname: a\ndescription: A\n---\n", "tools.allow",
			[]string{readFile, shellRun}, "---\nname: a\ndescription: A\ntools: Read, Bash\n---\n"},
		{"a VS Code agent gets a list", "a.agent.md", "---\ndescription: A\n---\n", "tools.allow",
			[]string{readFile, "github.*"}, "---\ndescription: A\ntools: [read/readFile, github/*]\n---\n"},
		{"a VS Code list gains disallowedTools, not a mapping", "a.agent.md", "---\ndescription: A\ntools: ['edit']\n---\n", "tools.deny",
			[]string{writeFile}, "---\ndescription: A\ntools: ['edit']\ndisallowedTools: ['edit/createFile']\n---\n"},
		{"an agentry file gets the agentry form", "a.md", "---\nname: a\ndescription: A\n---\n", "tools.allow",
			[]string{readFile}, "---\nname: a\ndescription: A\ntools:\n  allow: [filesystem.read_file]\n---\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(tc.file, []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Set(tc.key, tc.value); err != nil {
				t.Fatal(err)
			}
			if got := string(d.Bytes()); got != tc.want {
				t.Fatalf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestFlowListsKeepTheirLayout(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"one item a line", "---\ndescription: D\ntools:\n  [\n    \"codebase\",\n    \"editFiles\",\n    \"fetch\"\n  ]\nmodel: x\n---\n",
			"---\ndescription: D\ntools:\n  [\n    \"codebase\",\n    \"editFiles\",\n    \"textSearch\"\n  ]\nmodel: x\n---\n"},
		{"one item a line with a trailing comma", "---\ndescription: D\ntools: [\n  'editFiles',\n  'fetch',\n]\n---\n",
			"---\ndescription: D\ntools: [\n  'editFiles',\n  'textSearch',\n]\n---\n"},
		{"a list on the line after its key", "---\ndescription: D\ntools:\n  [ 'editFiles', 'fetch' ]\n---\n",
			"---\ndescription: D\ntools:\n  [ 'editFiles', 'textSearch' ]\n---\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse("d.agent.md", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Set("tools.allow", []string{editFile, grepTool}); err != nil {
				t.Fatal(err)
			}
			if got := string(d.Bytes()); got != tc.want {
				t.Fatalf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// The editor's round trip: a snapshot that knows an MCP server decodes the
// file, the form removes one chip, and the document from the same snapshot
// writes the rest back in Claude Code spelling, keeping what it cannot show.
func TestAnEditorRoundTripThroughASnapshotKeepsTheDialect(t *testing.T) {
	src := "---\nname: triage\ndescription: Triage issues\ntools: Read, mcp__github__create_issue, Agent(fixer), context7, WebSearch\n---\nTriage.\n"
	s, err := Load(fstest.MapFS{"triage.md": {Data: []byte(src)}, "fixer.md": agentFile("fixer")},
		Options{KnownTools: append(slices.Clone(BuiltinTools), "github.*")})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.Agent("triage")
	if !slices.Equal(a.Tools.Allow, []string{readFile, "github.create_issue", webSearch}) ||
		!a.Delegation.Listed || !slices.Equal(a.Delegation.Targets, []string{"fixer"}) {
		t.Fatalf("agent = %+v", a)
	}
	d, _ := s.Document("triage.md")
	if err := d.Set("tools.allow", a.Tools.Allow); err != nil || string(d.Bytes()) != src {
		t.Fatalf("an unchanged form changed the file (%v):\n%s", err, d.Bytes())
	}
	if err := d.Set("tools.allow", []string{readFile, webSearch}); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(src, "Read, mcp__github__create_issue, Agent(fixer)", "Read, Agent(fixer)", 1)
	if got := string(d.Bytes()); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

// Any subset of tools in any order, written into a file of each dialect,
// reads back as exactly that list, and every entry the editor cannot show
// survives.
func TestAnyToolListReadsBackAsWritten(t *testing.T) {
	universe := []string{readFile, writeFile, editFile, globTool, grepTool, listDir, shellRun, webFetch, webSearch, todoWrite,
		"shell.run(git *)", "github.create_issue", "github.*", "web", "filesystem"}
	files := map[string]string{
		".claude/agents/c.md": "---\nname: c\ndescription: C\ntools: Task, Read, Bash(git:*), NotebookEdit\n---\n",
		"v.agent.md":          "---\ndescription: V\ntools: ['agent', 'search/codebase', 'edit', 'problems']\n---\n",
		"p.chatmode.md":       "---\ndescription: P\ntools:\n  - runSubagent\n  - editFiles\n  - usages\n---\n",
		"a.md":                "---\nname: a\ndescription: A\ntools:\n  allow: [Task, web]\n---\n",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for file, src := range files {
		d0, _ := Parse(file, []byte(src))
		d0.known = knownWithServers
		oldEntries, _ := toolEntries(d0.lookup("tools.allow"))
		var hidden []string
		for _, e := range oldEntries {
			if t := MapTool(e, knownWithServers); t.Delegate || t.Unavailable {
				hidden = append(hidden, e)
			}
		}
		for range 100 {
			want := slices.Clone(universe)
			rng.Shuffle(len(want), func(i, j int) { want[i], want[j] = want[j], want[i] })
			want = want[:rng.IntN(len(want)+1)]
			want = normalizeWant(want)
			d, _ := Parse(file, []byte(src))
			d.known = knownWithServers
			if err := d.Set("tools.allow", want); err != nil {
				t.Fatalf("%s: set %v: %v", file, want, err)
			}
			a, _, _ := d.decode(knownWithServers)
			if !slices.Equal(sameMeaning(a.Tools.Allow), sameMeaning(want)) {
				t.Fatalf("%s: set %v, reads back %v\n%s", file, want, a.Tools.Allow, d.Bytes())
			}
			got, _ := toolEntries(d.lookup("tools.allow"))
			for _, h := range hidden {
				if !slices.Contains(got, h) {
					t.Fatalf("%s: set %v lost %q\n%s", file, want, h, d.Bytes())
				}
			}
		}
	}
}

// sameMeaning expands groups and writes "server.*" as "server", which
// mean the same tools.
func sameMeaning(tools []string) []string {
	out := expandGroups(tools)
	for i, t := range out {
		out[i] = strings.TrimSuffix(t, ".*")
	}
	slices.Sort(out)
	return out
}

// normalizeWant drops tools that another wanted pattern already covers, as
// the editor would never show both "web" and "web.fetch".
func normalizeWant(want []string) []string {
	var out []string
	for _, w := range want {
		covered := false
		for _, o := range want {
			if o != w && (strings.HasPrefix(w, o+".") || o == "github.*" && strings.HasPrefix(w, "github.") || o == shellRun && strings.HasPrefix(w, shellRun+"(") || o == "filesystem" && w == "web") {
				covered = true
			}
		}
		if !covered {
			out = append(out, w)
		}
	}
	return out
}

func TestToolEditsKeepCRLF(t *testing.T) {
	tests := []struct{ name, file, src, want string }{
		{"a comma string", "a.md", "---\r\nname: a\r\ndescription: A\r\ntools: Read, Grep\r\n---\r\nA\r\n",
			"---\r\nname: a\r\ndescription: A\r\ntools: Read, WebFetch\r\n---\r\nA\r\n"},
		{"a list one item a line", "a.agent.md", "---\r\ndescription: A\r\ntools: [\r\n  'readFile',\r\n  'textSearch'\r\n]\r\n---\r\nA\r\n",
			"---\r\ndescription: A\r\ntools: [\r\n  'readFile',\r\n  'fetch'\r\n]\r\n---\r\nA\r\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := Parse(tc.file, []byte(tc.src))
			if err := d.Set("tools.allow", []string{readFile, webFetch}); err != nil {
				t.Fatal(err)
			}
			if got := string(d.Bytes()); got != tc.want {
				t.Fatalf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}
