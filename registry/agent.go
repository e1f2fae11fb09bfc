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
)

// DefaultMaxConcurrent is the per-agent cap on running children when the file is silent.
const DefaultMaxConcurrent = 5

// Agent is the typed view of one agent file. It is a value: the registry hands
// out copies, and editing goes through Document so the file stays lossless.
type Agent struct {
	Name        string
	Description string
	// Model is "provider:model", an alias, "inherit" or "" (the global default).
	Model string
	// Tools are the agent's own tool rules, with Claude Code / VS Code names
	// already mapped to agentry tool names.
	Tools     permissions.Rules
	Subagents Subagents
	MaxTurns  int           // 0 means the runtime default
	Timeout   time.Duration // 0 means none beyond the run's
	Retry     Retry
	Enabled   bool
	// Prompt is the Markdown body: the agent's system prompt.
	Prompt string
	// File is the path of the file relative to the agents folder, slash-separated.
	File string

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
}

// Retry is the policy for transient model errors.
type Retry struct {
	MaxAttempts int    // total attempts, at least 1
	Backoff     string // "exponential" (default) or "constant"
}

// Permissions returns the facts the permissions package decides on.
func (a Agent) Permissions() permissions.Agent {
	return permissions.Agent{Name: a.Name, Subagents: a.Subagents.Rules, Nested: a.Subagents.Nested, Enabled: a.Enabled}
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
