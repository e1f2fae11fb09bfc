package registry

// The tool-name table: every tool name Claude Code and VS Code agent files
// use, and what it means in agentry. It is data so that docs/tools.md, the
// decoder and the editor's reverse mapping all read the same rows; a test
// checks that the page lists every row.
//
// Decisions (docs/tools.md says them for users):
//   - Nothing maps to an invented name: a name agentry has nothing for is
//     the warning "not available in agentry: NAME".
//   - A name is an MCP server's only in explicit forms (mcp__s__t, s/*), as
//     agentry's own s.tool, or when s is configured; never when s is a VS
//     Code tool set (search/codebase).
//   - A tool narrowed to a path or domain (Read(./src/**)) is not available
//     in an allow list, since agentry cannot narrow it and must not widen
//     it; in a deny list it denies the whole tool.
//   - Delegation names (Task, Agent, agent, runSubagent) grant no tool; they
//     are recorded on Agent.Delegation for the runtime and the validator. An
//     allow list written for Claude Code or VS Code (writtenFor) that names
//     none is all the agent may use there, so it may not delegate
//     (ToolDelegation.Refused); a list in agentry's names leaves delegating
//     to subagents.
//   - Tool-list edits go the other way (respell.go): the editor's agentry
//     names are written in the field's dialect, keeping every entry whose
//     tools are all still chosen as written and every entry the editor
//     cannot show where it was.

// toolDialect is the tool family a name or a file is written for.
type toolDialect uint8

// Dialects of tool names.
const (
	dialectAgentry toolDialect = iota // filesystem.read_file, web, server.tool
	dialectClaude                     // Read, Bash(git:*), mcp__server__tool
	dialectVSCode                     // read, search/codebase, server/*
)

// String names the dialect as docs and messages do.
func (d toolDialect) String() string {
	switch d {
	case dialectClaude:
		return "Claude Code"
	case dialectVSCode:
		return "VS Code"
	}
	return "agentry"
}

// toolRow is one name of the table. A row grants tools, means delegation,
// or (neither) is not available in agentry.
type toolRow struct {
	name     string
	dialect  toolDialect
	tools    []string // agentry tools the name grants
	delegate bool     // the name lets the agent delegate
	note     string   // why, for the docs page
}

// Agentry tool names the table maps onto.
const (
	readFile  = "filesystem.read_file"
	writeFile = "filesystem.write_file"
	editFile  = "filesystem.edit_file"
	globTool  = "filesystem.glob"
	grepTool  = "filesystem.grep"
	listDir   = "filesystem.list_dir"
	webFetch  = "web.fetch"
	webSearch = "web.search"
	todoWrite = "todo.write"
	shellRun  = "shell.run"
	skillTool = "skill"
)

func grant(tools ...string) []string { return tools }

// claudeRows are Claude Code's tools as its tools reference names them
// (subagent tools:, disallowedTools: and permission rules), with older
// names (LS, MultiEdit, NotebookRead, TodoRead, KillBash) files still use.
var claudeRows = []toolRow{
	{name: "Read", tools: grant(readFile)},
	{name: "Write", tools: grant(writeFile)},
	{name: "Edit", tools: grant(editFile)},
	{name: "MultiEdit", tools: grant(editFile), note: "several edits of one file"},
	{name: "Glob", tools: grant(globTool)},
	{name: "Grep", tools: grant(grepTool)},
	{name: "LS", tools: grant(listDir)},
	{name: "Bash", tools: grant(shellRun), note: "sandboxed; Bash(git:*) becomes shell.run(git *)"},
	{name: "BashOutput", note: "agentry has no background shells: shell.run returns the output"},
	{name: "KillShell", note: "agentry has no background shells"},
	{name: "KillBash", note: "agentry has no background shells"},
	{name: "WebFetch", tools: grant(webFetch)},
	{name: "WebSearch", tools: grant(webSearch)},
	{name: "NotebookRead", tools: grant(readFile), note: "a notebook is read as a file"},
	{name: "NotebookEdit", note: "no cell-aware notebook editing"},
	{name: "TodoWrite", tools: grant(todoWrite)},
	{name: "TodoRead", tools: grant(todoWrite), note: "todo.write returns the list"},
	{name: "TaskCreate", tools: grant(todoWrite), note: "Claude Code's newer checklist tools"},
	{name: "TaskUpdate", tools: grant(todoWrite)},
	{name: "TaskList", tools: grant(todoWrite)},
	{name: "TaskGet", tools: grant(todoWrite)},
	{name: "Task", delegate: true, note: "Task(a, b) limits the targets"},
	{name: "Agent", delegate: true, note: "Agent(a, b) limits the targets"},
	{name: "TaskOutput", note: "no background tasks"},
	{name: "TaskStop", note: "no background tasks"},
	{name: "Skill", tools: grant(skillTool), note: "loads an Agent Skill's instructions"},
	{name: "SlashCommand", note: "a model cannot start a slash command; agentry run --command does"},
	{name: "AskUserQuestion", note: "agents do not question the user mid-run"},
	{name: "EnterPlanMode", note: "no plan mode"},
	{name: "ExitPlanMode", note: "no plan mode"},
	{name: "EnterWorktree", note: "no worktrees"},
	{name: "ExitWorktree", note: "no worktrees"},
	{name: "SendMessage", note: "delegation returns results instead"},
	{name: "TeamCreate", note: "no agent teams: delegation is a tree"},
	{name: "TeamDelete", note: "no agent teams: delegation is a tree"},
	{name: "ToolSearch", note: "tools are listed up front"},
	{name: "MCPSearch", note: "tools are listed up front"},
	{name: "ListMcpResourcesTool", note: "MCP resources are not exposed"},
	{name: "ReadMcpResourceTool", note: "MCP resources are not exposed"},
	{name: "LSP", note: "no language server"},
	{name: "PowerShell", note: "shell.run runs bash"},
	{name: "CronCreate", note: "no scheduled prompts"},
	{name: "CronDelete", note: "no scheduled prompts"},
	{name: "CronList", note: "no scheduled prompts"},
	{name: "Artifact", note: "no claude.ai artifacts"},
}

// vsSet is a VS Code tool set: its member tools and what the whole set
// grants. The qualified form "set/member" means the member.
type vsSet struct {
	name     string
	members  []string
	tools    []string
	delegate bool
	note     string
}

// vsSets are VS Code's predefined tool sets, current ones (as VS Code's
// "Tools and context reference" lists them) and older ones (runCommands,
// runTasks, runNotebooks, new) that custom agents still name.
var vsSets = []vsSet{
	{name: "read", tools: grant(readFile), members: []string{"readFile", "problems", "terminalLastCommand", "terminalSelection", "getTaskOutput", "viewImage", "getNotebookSummary", "readNotebookCellOutput"}},
	{name: "edit", tools: grant(editFile, writeFile), members: []string{"editFiles", "createFile", "createDirectory", "editNotebook", "createJupyterNotebook"}},
	{name: "search", tools: grant(globTool, grepTool, listDir), note: "codebase, usages and changes are not available", members: []string{"fileSearch", "textSearch", "listDirectory", "codebase", "usages", "changes", "searchResults"}},
	{name: "execute", tools: grant(shellRun), members: []string{"runInTerminal", "getTerminalOutput", "awaitTerminal", "killTerminal", "createAndRunTask", "runTask", "getTaskOutput", "runTests", "testFailure", "runNotebookCell"}},
	{name: "web", tools: grant(webFetch), note: "no web search in VS Code's set; githubRepo is not available", members: []string{"fetch", "githubRepo"}},
	{name: "agent", delegate: true, members: []string{"runSubagent"}},
	{name: "todo", tools: grant("todo"), note: "agentry's group todo"},
	{name: "vscode", note: "VS Code's own commands and extensions", members: []string{"extensions", "getProjectSetupInfo", "installExtension", "newWorkspace", "openSimpleBrowser", "runCommand", "VSCodeAPI", "vscodeAPI", "askQuestions", "memory"}},
	{name: "runCommands", tools: grant(shellRun), note: "older name of execute", members: []string{"runInTerminal", "getTerminalOutput", "terminalLastCommand", "terminalSelection"}},
	{name: "runTasks", note: "VS Code tasks", members: []string{"createAndRunTask", "runTask", "getTaskOutput"}},
	{name: "runNotebooks", note: "notebook cells", members: []string{"editNotebook", "runNotebookCell", "readNotebookCellOutput"}},
	{name: "new", note: "VS Code workspace scaffolding", members: []string{"newWorkspace", "getProjectSetupInfo", "installExtension", "runCommand"}},
	{name: "browser", note: "VS Code's integrated browser", members: []string{"openBrowserPage", "navigatePage", "readPage", "clickElement", "typeInPage", "screenshotPage"}},
}

// vsToolRows are VS Code's individual tools, plain (as older agents write
// them) and, through vsSets, qualified. GitHub's cloud agent aliases
// (shell, custom-agent) read the same files, so they are here too.
var vsToolRows = []toolRow{
	{name: "readFile", tools: grant(readFile)},
	{name: "editFiles", tools: grant(editFile)},
	{name: "createFile", tools: grant(writeFile)},
	{name: "fileSearch", tools: grant(globTool)},
	{name: "textSearch", tools: grant(grepTool)},
	{name: "listDirectory", tools: grant(listDir)},
	{name: "runInTerminal", tools: grant(shellRun)},
	{name: "terminalCommand", tools: grant(shellRun), note: "older name of runInTerminal"},
	{name: "fetch", tools: grant(webFetch)},
	{name: "todos", tools: grant(todoWrite), note: "older name of todo"},
	{name: "runSubagent", delegate: true},
	{name: "shell", tools: grant(shellRun), note: "GitHub's alias for execute"},
	{name: "custom-agent", delegate: true, note: "GitHub's alias for agent"},
	{name: "createDirectory", note: "write_file creates parent folders when it writes"},
	{name: "problems", note: "no editor diagnostics"},
	{name: "terminalLastCommand", note: "no shared terminal"},
	{name: "terminalSelection", note: "no shared terminal"},
	{name: "getTerminalOutput", note: "shell.run returns the output"},
	{name: "awaitTerminal", note: "shell.run returns the output"},
	{name: "killTerminal", note: "shell.run kills on timeout"},
	{name: "getTaskOutput", note: "no VS Code tasks"},
	{name: "createAndRunTask", note: "no VS Code tasks"},
	{name: "runTask", note: "no VS Code tasks"},
	{name: "runTests", note: "run the tests with shell.run"},
	{name: "testFailure", note: "no test explorer"},
	{name: "findTestFiles", note: "no test explorer"},
	{name: "viewImage", note: "no image input"},
	{name: "getNotebookSummary", note: "no notebooks"},
	{name: "readNotebookCellOutput", note: "no notebooks"},
	{name: "readCellOutput", note: "no notebooks"},
	{name: "editNotebook", note: "no notebooks"},
	{name: "createJupyterNotebook", note: "no notebooks"},
	{name: "runNotebookCell", note: "no notebooks"},
	{name: "codebase", note: "no semantic code index: use filesystem.grep"},
	{name: "usages", note: "no language server"},
	{name: "changes", note: "no source-control view: use shell.run(git *)"},
	{name: "searchResults", note: "no search view"},
	{name: "githubRepo", note: "no GitHub code search"},
	{name: "githubTextSearch", note: "no GitHub code search"},
	{name: "extensions", note: "no VS Code extensions"},
	{name: "getProjectSetupInfo", note: "VS Code workspace scaffolding"},
	{name: "installExtension", note: "no VS Code extensions"},
	{name: "newWorkspace", note: "VS Code workspace scaffolding"},
	{name: "openSimpleBrowser", note: "no browser"},
	{name: "runCommand", note: "VS Code commands"},
	{name: "VSCodeAPI", note: "VS Code API docs"},
	{name: "vscodeAPI", note: "VS Code API docs (older spelling)"},
	{name: "selection", note: "a context item (the editor selection), not a tool"},
	{name: "askQuestions", note: "agents do not question the user mid-run"},
	{name: "memory", note: "no memory tool"},
	{name: "openBrowserPage", note: "no browser"},
	{name: "navigatePage", note: "no browser"},
	{name: "readPage", note: "no browser"},
	{name: "clickElement", note: "no browser"},
	{name: "typeInPage", note: "no browser"},
	{name: "screenshotPage", note: "no browser"},
	{name: "updateUserPreferences", note: "VS Code settings"},
	{name: "renderMermaidDiagram", note: "no diagram view"},
	{name: "copilotCodingAgent", note: "GitHub's cloud agent"},
	{name: "activePullRequest", note: "the GitHub Pull Requests extension"},
	{name: "openPullRequest", note: "the GitHub Pull Requests extension"},
	{name: "powershell", note: "shell.run runs bash"},
}

// toolTable is every row: Claude Code names, VS Code tool sets, plain VS
// Code tools and every qualified "set/member" form, in that order.
var toolTable = buildToolTable()

// toolIndex finds a row by the name as written (case-sensitive: Read and
// read are different tools in different dialects).
var toolIndex = indexRows(toolTable)

func buildToolTable() []toolRow {
	var rows []toolRow
	for _, r := range claudeRows {
		r.dialect = dialectClaude
		rows = append(rows, r)
	}
	plain := map[string]toolRow{}
	for _, r := range vsToolRows {
		r.dialect = dialectVSCode
		plain[r.name] = r
	}
	for _, s := range vsSets {
		rows = append(rows, toolRow{name: s.name, dialect: dialectVSCode, tools: s.tools, delegate: s.delegate, note: setNote(s)})
	}
	for _, r := range vsToolRows {
		rows = append(rows, plain[r.name])
	}
	for _, s := range vsSets {
		for _, m := range s.members {
			r, ok := plain[m]
			if !ok {
				panic("registry: tool set " + s.name + " names unknown tool " + m)
			}
			r.name = s.name + "/" + m
			rows = append(rows, r)
		}
	}
	return rows
}

func setNote(s vsSet) string {
	if s.note != "" {
		return "tool set; " + s.note
	}
	return "tool set"
}

func indexRows(rows []toolRow) map[string]toolRow {
	idx := make(map[string]toolRow, len(rows))
	for _, r := range rows {
		if _, dup := idx[r.name]; dup {
			panic("registry: tool name " + r.name + " is in the table twice")
		}
		idx[r.name] = r
	}
	return idx
}

// isVSCodeSet reports whether name is one of VS Code's tool sets, so that
// "search/codebase" is read as a VS Code tool, never as an MCP server.
func isVSCodeSet(name string) bool {
	for _, s := range vsSets {
		if s.name == name {
			return true
		}
	}
	return false
}
