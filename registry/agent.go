package registry

import (
	"strconv"
	"time"

	"github.com/agentry/agentry/permissions"
)

// Execution modes for a batch of delegate calls in one model turn.
const (
	Parallel          = "parallel"
	ParallelStreaming = "parallel_streaming"
	Sequential        = "sequential"
)

// Context modes: what a child receives of its parent's conversation.
const (
	ContextTaskOnly = "task_only"
	ContextSummary  = "summary"
	ContextFull     = "full"
	// ContextFullHistory is seed 001/003's spelling of ContextFull; the
	// decoder and the runtime read it as ContextFull.
	ContextFullHistory = "full_history"
)

// DefaultMaxConcurrent is the per-agent cap on running children when the file is silent.
const DefaultMaxConcurrent = 5

// Agent is the typed view of one agent file. It is a value: the registry hands
// out copies, and editing goes through Document so the file stays lossless.
type Agent struct {
	// Name is the agent's id (IDPattern): name: when that is a valid id,
	// else, and always in VS Code files, the slugged file name. URLs, CLI
	// arguments, delegate's enum, problems and traces use it.
	Name string
	// DisplayName is name: as written when it is not the id ("C# Expert",
	// "Research Coordinator"); "" when the id is the name.
	DisplayName string
	Description string
	// Model is the first of Models, kept for callers that take one model.
	Model string
	// Models are the models the file names, in order of preference (VS
	// Code's prioritized list; a single string is a list of one): each
	// "provider:model", an alias, "inherit" or a model name. Empty means
	// the global default. The runtime uses the first that resolves.
	Models []string
	// ModelLine is the file line of model:, for warnings about a model
	// that does not resolve; 0 when the file has none.
	ModelLine int
	// Tools are the agent's own tool rules, with Claude Code / VS Code names
	// already mapped to agentry tool names.
	Tools permissions.Rules
	// Skills are the agent's own skills rules: skills: {allow, deny}, or
	// Claude Code's skills: list, which allows exactly the skills it
	// names. Absent (nil Allow) lets every skill through at this level.
	Skills permissions.Rules
	// Preload are the skills Claude Code's skills: list names: as Claude
	// Code does, their instructions are in the agent's context from the
	// start (the runtime loads each that the chain allows).
	Preload   []string
	Subagents Subagents
	MaxTurns  int           // 0 means the runtime default
	Timeout   time.Duration // 0 means none beyond the run's
	Retry     Retry
	Enabled   bool
	// NotSubagent says why the agent runs only when a person starts it and
	// is never another agent's sub-agent (VS Code's disable-model-invocation:
	// true, or the older infer: false); "" when it may be one.
	NotSubagent string
	// Sampling holds temperature and max_tokens, passed to the provider.
	Sampling Sampling
	// Orchestrator (orchestrator: true) makes the agent a dispatcher that
	// reaches its own tools only through get_skill and dispatched agents.
	Orchestrator bool
	// Budget caps the whole tree of a run this agent is the root of
	// (budget.go); zero fields set no cap.
	Budget Budget
	// Prompt is the Markdown body: the agent's system prompt.
	Prompt string
	// File is the path of the file relative to the agents folder, slash-separated.
	File string
	// Version is the Hash of the file content this agent was decoded from:
	// the content it runs with, which a broken file's last good version
	// keeps. Runs record it on each invoke_agent span (agent_version).
	Version string

	// Delegation records the Task, Agent(a, b), agent and runSubagent
	// entries of the tool lists, which grant no tool in agentry.
	Delegation ToolDelegation
}

// Subagents is the delegation part of the frontmatter.
type Subagents struct {
	Rules         permissions.Rules
	Execution     string // Parallel (default), ParallelStreaming or Sequential
	MaxConcurrent int    // DefaultMaxConcurrent when the file is silent
	Context       string // ContextTaskOnly (default), ContextSummary or ContextFull
	Nested        bool
	// Dispatch (subagents.dispatch: true) offers get_skill, dispatch_agent
	// and get_agent_results: ad-hoc sub-agents scoped to some of its tools.
	Dispatch bool
}

// Sampling is an agent's per-call sampling settings; nil and 0 leave the
// provider's default.
type Sampling struct {
	Temperature *float64
	MaxTokens   int
}

// Retry is the policy for transient model errors.
type Retry struct {
	MaxAttempts int    // total attempts, at least 1
	Backoff     string // one of Backoffs; BackoffExponential when the file is silent
}

// Delay is the wait before retry number retry+1 (retry counts from 0) for
// a first wait of base, capped at limit: the one definition of the backoff
// policies, which the runtime applies.
func (r Retry) Delay(base, limit time.Duration, retry int) time.Duration {
	n := time.Duration(1) // base × n, n checked against overflow
	switch r.Backoff {
	case BackoffNone:
		return 0
	case BackoffConstant:
	case BackoffLinear:
		n = time.Duration(retry + 1)
	default: // BackoffExponential
		if retry >= 62 {
			return limit
		}
		n = 1 << retry
	}
	if base <= 0 || base > limit/n {
		return limit
	}
	return base * n
}

// Label is the id, with the display name beside it when there is one:
// "csharp-expert (C# Expert)".
func (a Agent) Label() string {
	if a.DisplayName == "" {
		return a.Name
	}
	return a.Name + " (" + a.DisplayName + ")"
}

// Permissions returns the facts the permissions package decides on.
func (a Agent) Permissions() permissions.Agent {
	return permissions.Agent{Name: a.Name, Subagents: a.Subagents.Rules, Nested: a.Subagents.Nested, Enabled: a.Enabled, NotSubagent: a.NotSubagent,
		ToolLimit: permissions.ToolLimit{All: a.Delegation.Denied, Refused: a.Delegation.Refused, Deny: a.Delegation.DeniedTargets, Only: a.Delegation.Targets}}
}

// Severity of a Problem.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Problem is one validation finding, shaped as `agentry validate --json` prints it.
type Problem struct {
	File     string `json:"file"`
	Agent    string `json:"agent"`
	Severity string `json:"severity"`
	Line     int    `json:"line"`
	Message  string `json:"message"`
	// Field is the frontmatter key the problem is about ("" for the file), so
	// the editor can show it next to its input.
	Field string `json:"field,omitempty"`
}

// Error makes a Problem usable as an error: "file:line: message".
func (p Problem) Error() string {
	if p.Line > 0 {
		return p.File + ":" + strconv.Itoa(p.Line) + ": " + p.Message
	}
	return p.File + ": " + p.Message
}
