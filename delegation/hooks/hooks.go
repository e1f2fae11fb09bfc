package hooks

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
)

// Point is where in a run a hook fires.
type Point string

// The hook points. Tool points match on the tool name, the others on the
// agent's id.
const (
	PreTool       Point = "pre_tool"
	PostTool      Point = "post_tool"
	SubagentStart Point = "subagent_start"
	SubagentStop  Point = "subagent_stop"
	RunStart      Point = "run_start"
	RunEnd        Point = "run_end"
)

// Points lists every hook point in the order a run meets them.
var Points = []Point{RunStart, SubagentStart, PreTool, PostTool, SubagentStop, RunEnd}

// Valid reports whether p is a known hook point.
func (p Point) Valid() bool {
	for _, q := range Points {
		if p == q {
			return true
		}
	}
	return false
}

// claudeNames are the hook_event_name values Claude Code uses for each point.
var claudeNames = map[Point]string{
	PreTool: "PreToolUse", PostTool: "PostToolUse", SubagentStart: "SubagentStart",
	SubagentStop: "SubagentStop", RunStart: "SessionStart", RunEnd: "Stop",
}

// OnError values: what a hook that fails or times out counts as.
const (
	OnErrorAllow = "allow"
	OnErrorBlock = "block"
)

// DefaultTimeout bounds a hook that sets none (Claude Code's default too).
const DefaultTimeout = 60 * time.Second

// Hook is one command at one point.
type Hook struct {
	// Match picks the tools (tool points) or agents (other points) the hook
	// runs for: a permissions pattern ("shell.run", "filesystem",
	// "filesystem.write_*", "*"), or several joined by "|". Empty matches all.
	Match string `yaml:"match" json:"match,omitempty"`
	// If narrows a tool hook to the calls a pattern covers, as a deny
	// pattern would: "shell.run(git push *)" runs the hook only for command
	// lines with a git push in them (Claude Code's "if": Bash(git push *)),
	// so a script written for one command is not started for every other.
	// Several joined by "|"; empty runs it for every call Match picks.
	If string `yaml:"if" json:"if,omitempty"`
	// Command runs with sh -c in the workspace (relative paths start there;
	// CLAUDE_PROJECT_DIR names it too). Required.
	Command string `yaml:"command" json:"command"`
	// Timeout kills the hook's process group (0 = DefaultTimeout).
	Timeout time.Duration `yaml:"timeout" json:"timeout,omitempty"`
	// OnError is allow (default) or block.
	OnError string `yaml:"on_error" json:"on_error,omitempty"`
}

// Set is the hooks of every point, as the `hooks:` config key holds them.
type Set map[Point][]Hook

// Validate reports the first bad hook: unknown point, empty command, bad on_error.
func (s Set) Validate() error {
	for p, hs := range s {
		if !p.Valid() {
			return fmt.Errorf("hooks: unknown hook point %q (want one of %s)", p, pointList())
		}
		for i, h := range hs {
			if strings.TrimSpace(h.Command) == "" {
				return fmt.Errorf("hooks: %s[%d]: command is empty", p, i)
			}
			if h.OnError != "" && h.OnError != OnErrorAllow && h.OnError != OnErrorBlock {
				return fmt.Errorf("hooks: %s[%d]: on_error %q is not allow or block", p, i, h.OnError)
			}
			if err := h.validIf(p); err != nil {
				return fmt.Errorf("hooks: %s[%d]: %w", p, i, err)
			}
			if h.Timeout < 0 {
				return fmt.Errorf("hooks: %s[%d]: timeout %s is negative", p, i, h.Timeout)
			}
		}
	}
	return nil
}

// Merge returns s with other's hooks appended point by point.
func (s Set) Merge(other Set) Set {
	out := make(Set, len(s)+len(other))
	for p, hs := range s {
		out[p] = append(out[p], hs...)
	}
	for p, hs := range other {
		out[p] = append(out[p], hs...)
	}
	return out
}

func pointList() string {
	names := make([]string, len(Points))
	for i, p := range Points {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

// validIf checks If: tool points only, each pattern one a call can meet.
func (h Hook) validIf(p Point) error {
	if strings.TrimSpace(h.If) == "" {
		return nil
	}
	if p != PreTool && p != PostTool {
		return fmt.Errorf("if %q: only tool hooks (pre_tool, post_tool) take a condition", h.If)
	}
	for _, pat := range alternatives(h.If) {
		if why := permissions.ValidArgumentPattern(pat); why != "" {
			return fmt.Errorf("if %s", why)
		}
	}
	return nil
}

// matches reports whether the hook runs for ev: Match against its subject
// (a tool name or agent id), then, at tool points, If against the call.
func (h Hook) matches(ev Event) bool {
	subject := ev.subject()
	return anyOf(h.Match, func(p string) bool { return permissions.Match(p, subject) }) &&
		anyOf(h.If, func(p string) bool { return permissions.Covers(p, ev.ToolName, ev.Argument, ev.HasArgument) })
}

// anyOf reports whether some "|"-joined alternative of patterns satisfies
// ok; no patterns at all satisfy it.
func anyOf(patterns string, ok func(string) bool) bool {
	if strings.TrimSpace(patterns) == "" {
		return true
	}
	return slices.ContainsFunc(alternatives(patterns), ok)
}

// alternatives splits "a|b" into its patterns; a "|" inside an argument
// part ("shell.run(cat * | grep *)") is the command's pipe.
func alternatives(patterns string) []string {
	return registry.SplitOutsideParentheses(patterns, "|")
}

// Event is what a hook reads on stdin. Field names follow Claude Code's hook
// input where one fits; the rest are agentry's.
type Event struct {
	HookEventName string          `json:"hook_event_name"` // Claude Code's name for the point
	Point         Point           `json:"hook_point"`      // agentry's name for it
	SessionID     string          `json:"session_id"`      // the run id
	RunID         string          `json:"run_id"`
	Cwd           string          `json:"cwd"`
	Agent         string          `json:"agent"`                // the agent acting (the caller, for tool and subagent points)
	Depth         int             `json:"depth"`                // of Agent
	AgentType     string          `json:"agent_type,omitempty"` // the sub-agent (subagent points), the root agent (run points)
	SpanID        string          `json:"span_id,omitempty"`
	ToolName      string          `json:"tool_name,omitempty"`
	ToolInput     json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID     string          `json:"tool_use_id,omitempty"`
	ToolResponse  *string         `json:"tool_response,omitempty"`
	Task          string          `json:"task,omitempty"`
	Status        string          `json:"status,omitempty"` // how the action ended (post_tool, subagent_stop, run_end)
	Result        *string         `json:"result,omitempty"` // the sub-agent's or run's result
	Error         string          `json:"error,omitempty"`
	// Argument is the call's pattern argument (shell.run's command line),
	// which If is matched against; HasArgument is false for a tool that
	// takes none. The hook reads the whole call in tool_input.
	Argument    string `json:"-"`
	HasArgument bool   `json:"-"`
}

// subject is what a hook's Match is tested against.
func (e Event) subject() string {
	switch e.Point {
	case PreTool, PostTool:
		return e.ToolName
	case SubagentStart, SubagentStop, RunStart, RunEnd:
		if e.AgentType != "" {
			return e.AgentType
		}
	}
	return e.Agent
}

// Verdicts of one hook run.
const (
	VerdictAllow = "allow"
	VerdictBlock = "block"
)

// Run is one hook command's run, for the trace.
type Run struct {
	Command  string
	Duration time.Duration
	Verdict  string // allow | block
	Reason   string // why it blocked, or what went wrong
	ExitCode int    // -1 when it did not exit by itself
	Err      string // start failure, timeout or unexpected exit, "" when none
}

// Outcome is what the hooks of one point decided.
type Outcome struct {
	Block  bool
	Reason string // the blocking hook's reason
	Runs   []Run  // every hook that ran, in order
}
