// Package hooks runs the user's hook commands at the runtime's hook points
// (DESIGN §10): before and after a tool call, around a delegation, and at
// the start and end of a run.
//
// A hook is a shell command. It gets the event as JSON on stdin, with field
// names taken from Claude Code's hook input where one fits (session_id,
// hook_event_name, cwd, tool_name, tool_input, tool_use_id, tool_response,
// agent_type), so a script written for Claude Code reads it unchanged. It
// answers the way Claude Code hooks do: exit 2 blocks with stderr as the
// reason; exit 0 with {"decision": "block", "reason": ...} (or Claude Code's
// hookSpecificOutput.permissionDecision "deny") on stdout blocks too;
// anything else on exit 0 allows.
//
// A hook that fails to start, exits with another code, or outlives its
// timeout counts as its on_error says: allow (the default, as in Claude
// Code, where such errors are not blocking) or block. A hook that outlives
// its timeout is killed with its whole process group, so a script's own
// children do not linger.
//
// Hooks of one point run in the order written; the first that blocks ends
// the round, so a later hook never sees an action that was already refused.
package hooks
