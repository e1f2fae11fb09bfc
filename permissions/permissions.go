package permissions

// Rules is one level's allow, deny and ask pattern lists.
//
// Allow == nil means the level does not restrict (everything allowed);
// a non-nil empty Allow allows nothing. Deny always wins over Ask, and Ask
// over Allow; Ask never widens: a name only an ask pattern matches is still
// decided by Allow (ask.go).
type Rules struct {
	Allow []string
	Deny  []string
	Ask   []string
}

// Level is one named link of a permission chain: "global", or an agent name.
type Level struct {
	Name  string
	Rules Rules
}

// Decision is the outcome for one tool or delegation target, with its cause.
type Decision struct {
	// Subject is the tool or agent name decided on.
	Subject string `json:"subject"`
	Allowed bool   `json:"allowed"`
	// Ask is set on an allowed decision that needs a person's approval for
	// each call (the ask verdict); Level and Pattern then name the ask pattern.
	Ask bool `json:"ask,omitempty"`
	// Level is the name of the level that decided ("" when no level had a say).
	Level string `json:"level,omitempty"`
	// Pattern is the pattern that matched at Level ("" when absence decided).
	Pattern string `json:"pattern,omitempty"`
	// Reason is a sentence a person can read, e.g.
	// `denied by agent "research-coordinator": deny pattern "filesystem.write_*"`.
	Reason string `json:"reason"`
}

// GeneralPurpose is the built-in sub-agent every parent may use unless it denies it.
const GeneralPurpose = "general-purpose"

// DefaultMaxDepth caps every delegation branch when configuration is silent.
const DefaultMaxDepth = 3

// Agent is what the delegation rules need to know about one agent.
type Agent struct {
	Name      string
	Subagents Rules
	// Nested lets the agent delegate while itself running as a sub-agent, and be
	// re-entered on a branch it is already on.
	Nested  bool
	Enabled bool
	// NotSubagent says why the agent may run only when a person starts it
	// or a parent names it in its allow list, never through a pattern
	// (VS Code's disable-model-invocation: true); "" when it may.
	NotSubagent string
	// ToolLimit is what the agent's tool lists say of delegating, in a file
	// written for Claude Code or VS Code.
	ToolLimit ToolLimit
}

// ToolLimit is what a Claude Code or VS Code file's tool lists say of
// delegating: a deny list naming the delegation tool (disallowedTools: Task)
// refuses every target (All), or those its Agent(a, b) names (Deny); an
// allow list that names no delegation tool is all the agent may use, and
// VS Code's agents: [] names no sub-agent, so either refuses every target
// too (Refused says which: "its tools list names no Task or Agent"); an
// allow list's Agent(a, b) limits the targets to those (Only; nil: no
// limit). It only narrows: who may be called is still decided by the
// subagents rules.
type ToolLimit struct {
	All     bool
	Refused string
	Deny    []string
	Only    []string
}

// Delegation holds the run-wide settings for delegation decisions.
type Delegation struct {
	MaxDepth int      // 0 means DefaultMaxDepth
	Disabled []string // agent names disabled globally
	Ask      []string // agent patterns whose every delegation needs approval, globally
}
