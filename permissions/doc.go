// Package permissions decides which tools an agent invocation may use and which
// agents it may delegate to. It is pure: no I/O, no clock, no project imports, so
// the CLI, the runtime and the web UI all explain a decision the same way.
//
// The rules (DESIGN §4) in brief:
//
//   - A Level has allow and deny pattern lists. A nil Allow is absent and allows
//     everything; an empty, non-nil Allow allows nothing. Deny wins at a level.
//   - A tool is usable only if every level of the chain (global, each ancestor,
//     the agent) lets it through: the effective set is an intersection, so a
//     child never holds a tool its parent did not.
//   - A delegation target is decided by the delegating agent's own subagents
//     rules, with every ancestor's subagents deny list inherited, minus disabled
//     agents, under max depth, nested opt-in and the re-entry rule.
//
// Every function returns a Decision that names the level and pattern that made
// it, so a denial can always be explained.
package permissions
