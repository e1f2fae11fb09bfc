package registry

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestAgentReadsTheFullFormat(t *testing.T) {
	src := `---
name: research-coordinator
description: Coordinates research
model: openai:gpt-4.1-mini
tools:
  allow: [web, filesystem.read_file]
  deny: [filesystem.write_file]
subagents:
  allow: [data-analyst, "*-researcher"]
  deny: [code-helper]
  execution: parallel_streaming
  max_concurrent: 3
  context: summary
  nested: true
max_turns: 10
timeout: 2m
retry: {max_attempts: 2, backoff: constant}
enabled: false
---
You are a research coordinator.
`
	d, err := Parse("team/research.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	a, probs := d.Agent()
	if len(probs) != 0 {
		t.Fatalf("problems: %v", probs)
	}
	want := Agent{
		Name: "research-coordinator", Description: "Coordinates research", Model: "openai:gpt-4.1-mini",
		MaxTurns: 10, Timeout: 2 * time.Minute, Retry: Retry{2, BackoffConstant}, Enabled: false,
		Prompt: "You are a research coordinator.", File: "team/research.md",
	}
	want.Tools.Allow, want.Tools.Deny = []string{"web", "filesystem.read_file"}, []string{"filesystem.write_file"}
	want.Subagents = Subagents{Execution: ParallelStreaming, MaxConcurrent: 3, Context: ContextSummary, Nested: true}
	want.Subagents.Rules.Allow, want.Subagents.Rules.Deny = []string{"data-analyst", "*-researcher"}, []string{"code-helper"}
	if !agentsEqual(a, want) {
		t.Fatalf("got  %+v\nwant %+v", a, want)
	}
}

func TestAgentAppliesDefaults(t *testing.T) {
	d, _ := Parse("helper.md", []byte("---\ndescription: Helps\n---\nHelp.\n"))
	a, probs := d.Agent()
	if len(probs) != 0 {
		t.Fatalf("problems: %v", probs)
	}
	if a.Name != "helper" || !a.Enabled || a.Tools.Allow != nil || a.Subagents.Rules.Allow != nil ||
		a.Subagents.Execution != Parallel || a.Subagents.Context != ContextTaskOnly || a.Subagents.MaxConcurrent != DefaultMaxConcurrent ||
		a.Retry != (Retry{DefaultMaxAttempts, BackoffExponential}) {
		t.Fatalf("defaults: %+v", a)
	}
}

func TestAgentReadsClaudeCodeAndVSCodeForms(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		text      string
		wantTools []string
		wantDeny  []string
		wantSubs  []string
		wantWarn  string
	}{
		{"a Claude Code comma string maps tool names", "reviewer.md",
			"---\nname: reviewer\ndescription: Reviews\ntools: Read, Grep, Glob, LS, WebFetch\nmodel: sonnet\n---\n",
			[]string{"filesystem.read_file", "filesystem.grep", "filesystem.glob", "filesystem.list_dir", "web.fetch"}, nil, nil, ""},
		{"Claude Code disallowedTools become deny", "writer.md",
			"---\nname: writer\ndescription: Writes\ndisallowedTools: Write, MultiEdit\n---\n",
			nil, []string{"filesystem.write_file", "filesystem.edit_file"}, nil, ""},
		{"a Claude Code tool without equivalent is a warning", "shell.md",
			"---\nname: shell\ndescription: Runs\ntools: Read, NotebookEdit\n---\n",
			[]string{"filesystem.read_file"}, nil, nil, `not available in agentry: NotebookEdit`},
		{"Claude Code MCP names become server tools", "db.md",
			"---\nname: db\ndescription: Queries\ntools: mcp__neo4j__query\n---\n",
			[]string{"neo4j.query"}, nil, nil, `not available in agentry: mcp__neo4j__query (MCP server "neo4j" is not configured; the rule applies once it is)`},
		{"a VS Code server pattern of a server not configured is kept, with a warning in its own words", "gh.agent.md",
			"---\ndescription: Issues\ntools: ['github/*', 'read']\n---\n",
			[]string{"github.*", "filesystem.read_file"}, nil, nil, `not available in agentry: github/* (MCP server "github" is not configured; the rule applies once it is)`},
		{"VS Code agents and server patterns", "planner.agent.md",
			"---\ndescription: Plans\ntools: ['web/fetch', 'filesystem/*']\nagents: [coder, tester]\n---\n",
			[]string{"web.fetch", "filesystem.*"}, nil, []string{"coder", "tester"}, "names no agent or runSubagent, so this agent may not delegate"},
		{"Claude Code's Agent(a, b) gives a and b as sub-agents", "lead.md",
			"---\nname: lead\ndescription: Leads\ntools: Read, Agent(worker, researcher)\n---\n",
			[]string{"filesystem.read_file"}, nil, []string{"worker", "researcher"}, ""},
		{"Claude Code's bare Agent gives every agent, as its main agent may start any", "lead.md",
			"---\nname: lead\ndescription: Leads\ntools: Read, Agent\n---\n",
			[]string{"filesystem.read_file"}, nil, []string{"*"}, ""},
		{"VS Code's agent tool without agents: gives every agent", "lead.agent.md",
			"---\ndescription: Leads\ntools: ['read', 'agent']\n---\n",
			[]string{"filesystem.read_file"}, nil, []string{"*"}, ""},
		{"the file's own sub-agents list wins over the bare delegation tool", "lead.md",
			"---\nname: lead\ndescription: Leads\ntools: Read, Task\nsubagents:\n  allow: [helper]\n---\n",
			[]string{"filesystem.read_file"}, nil, []string{"helper"}, ""},
		{"a tools list that names no delegation tool stays opt-in", "reader.md",
			"---\nname: reader\ndescription: Reads\ntools: Read, Grep\n---\n",
			[]string{"filesystem.read_file", "filesystem.grep"}, nil, nil, ""},
		{"an empty tools string allows nothing, and says so", "empty.md",
			"---\nname: empty\ndescription: Thinks\ntools: \"\"\n---\n",
			[]string{}, nil, nil, "tools is an empty string, which allows no tool"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(tc.file, []byte(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			a, probs := d.Agent()
			if !slices.Equal(a.Tools.Allow, tc.wantTools) || !slices.Equal(a.Tools.Deny, tc.wantDeny) || !slices.Equal(a.Subagents.Rules.Allow, tc.wantSubs) {
				t.Fatalf("tools %v deny %v subagents %v", a.Tools.Allow, a.Tools.Deny, a.Subagents.Rules.Allow)
			}
			switch {
			case tc.wantWarn == "" && len(probs) > 0:
				t.Fatalf("unexpected problems %v", probs)
			case tc.wantWarn != "" && (len(probs) != 1 || probs[0].Severity != SeverityWarning || !strings.Contains(probs[0].Message, tc.wantWarn)):
				t.Fatalf("problems %v, want one warning %q", probs, tc.wantWarn)
			}
		})
	}
}

func TestAgentReportsProblemsWithFileLineAndField(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		text     string
		severity string
		line     int
		field    string
		msg      string
	}{
		{"a quoted number for max_concurrent", "a.md", "---\nname: a\ndescription: A\nsubagents:\n  max_concurrent: \"three\"\n---\n", SeverityError, 5, "subagents.max_concurrent", `must be a whole number, got string "three"`},
		{"zero max_turns", "a.md", "---\nname: a\ndescription: A\nmax_turns: 0\n---\n", SeverityError, 4, "max_turns", "at least 1"},
		{"an unknown execution mode", "a.md", "---\nname: a\ndescription: A\nsubagents:\n  execution: eventually\n---\n", SeverityError, 5, "subagents.execution", `"eventually" is not one of parallel, parallel_streaming, sequential`},
		{"an unknown context mode", "a.md", "---\nname: a\ndescription: A\nsubagents: {context: everything}\n---\n", SeverityError, 4, "subagents.context", "is not one of task_only, summary, full"},
		{"a name with capitals is a display name, with a warning", "a.md", "---\nname: Research\ndescription: A\n---\n", SeverityWarning, 2, "name", `name "Research" is not a valid id`},
		{"a name that is a number", "a.md", "---\nname: 42\ndescription: A\n---\n", SeverityError, 2, "name", `must be a string, got int "42"`},
		{"a file name that gives no id", "Ωμέγα.md", "---\ndescription: A\n---\n", SeverityError, 1, "name", "the file name gives no valid id"},
		{"a near miss of tools", "a.md", "---\nname: a\ndescription: A\ntool: Read\n---\n", SeverityError, 4, "tool", `did you mean "tools"`},
		{"another tool's spelling of tools", "a.md", "---\nname: a\ndescription: A\nallowed_tools: [Read]\n---\n", SeverityError, 4, "allowed_tools", `did you mean "tools"`},
		{"a near miss of disallowedTools", "a.md", "---\nname: a\ndescription: A\ndisallowed_tool: Bash\n---\n", SeverityError, 4, "disallowed_tool", `did you mean "disallowedTools"`},
		{"a near miss of subagents", "a.md", "---\nname: a\ndescription: A\nsubagent:\n  allow: [b]\n---\n", SeverityError, 4, "subagent", `did you mean "subagents"`},
		{"model_name", "a.md", "---\nname: a\ndescription: A\nmodel_name: sonnet\n---\n", SeverityError, 4, "model_name", `did you mean "model"`},
		{"a typo of description", "a.md", "---\nname: a\ndescription: A\ndescripton: B\n---\n", SeverityError, 4, "descripton", `did you mean "description"`},
		{"max-turns", "a.md", "---\nname: a\ndescription: A\nmax-turns: 3\n---\n", SeverityError, 4, "max-turns", `did you mean "max_turns"`},
		{"both spellings of the turn limit", "a.md", "---\nname: a\ndescription: A\nmax_turns: 3\nmaxTurns: 4\n---\n", SeverityError, 5, "maxTurns", "both set the turn limit (first on line 4)"},
		{"an unquoted colon in a one-line description", "a.md", "---\nname: a\ndescription: Use when: the user asks\n---\n", SeverityWarning, 3, "description", `unquoted ": "`},
		{"an argument hint of lists with text after the first", "a.md", "---\nname: a\ndescription: A\nargument-hint: [environment] [version]\n---\n", SeverityWarning, 4, "argument-hint", "the value is a list ([...]) with more text after it, which is not valid YAML; it is read as plain text"},
		{"Claude Code's agent-scoped hooks", "a.md", "---\nname: a\ndescription: A\nhooks:\n  PreToolUse:\n    - matcher: Bash\n---\n", SeverityWarning, 4, "hooks", "hooks is ignored: agentry runs no hooks from an agent file"},
		{"Claude Code's MCP servers of one agent", "a.md", "---\nname: a\ndescription: A\nmcpServers: [github]\n---\n", SeverityWarning, 4, "mcpServers", "mcpServers is ignored: agentry starts only the MCP servers of agentry.yaml"},
		{"GitHub's MCP servers of one agent", "a.agent.md", "---\ndescription: A\nmcp-servers:\n  gh:\n    type: local\n---\n", SeverityWarning, 3, "mcp-servers", "tools of a server defined here are not available"},
		{"Claude Code's permission mode", "a.md", "---\nname: a\ndescription: A\npermissionMode: plan\n---\n", SeverityWarning, 4, "permissionMode", "agentry has no permission modes"},
		{"VS Code's handoffs", "a.agent.md", "---\ndescription: A\nhandoffs:\n  - label: Go\n    agent: b\n---\n", SeverityWarning, 3, "handoffs", "agentry shows no handoff buttons"},
		{"only the keys that change how a tool shows the agent are kept silently", "a.agent.md", "---\ndescription: A\ncolor: red\nargument-hint: a task\nuser-invocable: false\ntarget: vscode\nmemory: project\n---\n", SeverityWarning, 7, "memory", "memory is ignored"},
		{"a VS Code prompt naming a tool agentry lacks, once", "a.agent.md", "---\ndescription: A\ntools: ['read', 'agent']\n---\nUse #tool:read and #tool:agent.\n\nSave it with #tool:memory. Then #tool:memory again.\n", SeverityWarning, 7, "body", "the prompt names #tool:memory, which is not available in agentry (no memory tool)"},
		{"a missing description", "a.md", "---\nname: a\n---\n", SeverityError, 1, "description", "description is missing"},
		{"a missing description in a VS Code file", "a.agent.md", "---\nname: a\n---\n", SeverityWarning, 1, "description", "description is missing"},
		{"a timeout without unit", "a.md", "---\nname: a\ndescription: A\ntimeout: 120\n---\n", SeverityError, 4, "timeout", "must be a duration"},
		{"an unknown backoff", "a.md", "---\nname: a\ndescription: A\nretry:\n  backoff: random\n---\n", SeverityError, 5, "retry.backoff", "not one of exponential, linear, constant, none"},
		{"enabled as a string", "a.md", "---\nname: a\ndescription: A\nenabled: \"yes\"\n---\n", SeverityError, 4, "enabled", "true or false"},
		{"a tool that matches nothing", "a.md", "---\nname: a\ndescription: A\ntools:\n  - filesystem.read_file\n  - shell.exec\n---\n", SeverityWarning, 6, "tools.allow", `"shell.exec" matches no known tool`},
		{"a misspelt tool", "a.md", "---\nname: a\ndescription: A\ntools: [web.fetchh]\n---\n", SeverityWarning, 4, "tools.allow", `tool "web.fetchh" matches no known tool; did you mean "web.fetch"?`},
		{"a key given twice", "a.md", "---\nname: a\ndescription: A\nname: b\n---\n", SeverityError, 4, "name", "set twice (first on line 2)"},
		{"the name the editor's new-agent route takes", "new.md", "---\nname: new\ndescription: A\n---\n", SeverityWarning, 2, "name", "cannot be opened in the web editor"},
		{"a model without provider", "a.md", "---\nname: a\ndescription: A\nmodel: \":gpt\"\n---\n", SeverityError, 4, "model", "provider:model"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(tc.file, []byte(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			_, probs := d.Agent()
			if len(probs) != 1 {
				t.Fatalf("problems = %v, want exactly one", probs)
			}
			p := probs[0]
			if p.File != tc.file || p.Severity != tc.severity || p.Line != tc.line || p.Field != tc.field || !strings.Contains(p.Message, tc.msg) {
				t.Fatalf("problem = %+v\nwant %s line %d field %s %q", p, tc.severity, tc.line, tc.field, tc.msg)
			}
		})
	}
}

func agentsEqual(a, b Agent) bool {
	eq := func(x, y []string) bool { return slices.Equal(x, y) && (x == nil) == (y == nil) }
	return eq(a.Tools.Allow, b.Tools.Allow) && eq(a.Tools.Deny, b.Tools.Deny) &&
		eq(a.Subagents.Rules.Allow, b.Subagents.Rules.Allow) && eq(a.Subagents.Rules.Deny, b.Subagents.Rules.Deny) &&
		a.Name == b.Name && a.Description == b.Description && a.Model == b.Model &&
		a.Subagents.Execution == b.Subagents.Execution && a.Subagents.MaxConcurrent == b.Subagents.MaxConcurrent &&
		a.Subagents.Context == b.Subagents.Context && a.Subagents.Nested == b.Subagents.Nested &&
		a.MaxTurns == b.MaxTurns && a.Timeout == b.Timeout && a.Retry == b.Retry && a.Enabled == b.Enabled &&
		a.Prompt == b.Prompt && a.File == b.File
}
