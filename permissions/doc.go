// Package permissions decides which tools an agent invocation may use and which
// agents it may delegate to. It is pure: no I/O, no clock, no project imports, so
// the CLI, the runtime and the web UI all explain a decision the same way.
//
// The rules (DESIGN §4) in brief:
//
//   - A pattern is a full name ("web.fetch"), a group ("web" matches "web" and
//     every "web.*") or a glob where "*" matches any run of characters, dots
//     included, and "?" one character ("filesystem.read_*", "*", "mcp?.x").
//   - A Level has allow and deny pattern lists. A nil Allow is absent and allows
//     everything; an empty, non-nil Allow allows nothing. Deny wins at a level.
//   - A tool is usable only if every level of the chain (global, each ancestor,
//     the agent) lets it through: the effective set is an intersection, so a
//     child never holds a tool its parent did not.
//   - A delegation target is decided by the delegating agent's own subagents
//     rules, with every ancestor's subagents deny list inherited, minus disabled
//     agents, under max depth, nested opt-in and the re-entry rule.
//   - What a Claude Code or VS Code file's tool lists say of delegating
//     (Agent.ToolLimit) only narrows: disallowedTools: Task, or an allow list
//     that names no Task or Agent (agent or runSubagent), is all the agent
//     may use in those tools, so MayDelegate refuses it every target,
//     general-purpose and dispatch_agent included; Agent(a, b) leaves a and
//     b. The registry decides which lists speak for those tools.
//
// A pattern may carry an argument part, "shell.run(git *)" (command.go). As a
// tool pattern it stands for its tool part, which must name one tool (an
// allow pattern "*(git *)" or "shell(git *)" allows nothing); in a deny
// list it does not deny the tool, only calls whose argument matches.
// Command decides one call: the command line is parsed by a real bash
// parser (mvdan.cc/sh, ParseCommand in shellparse.go) into the simple
// commands bash will run, each reduced to literal words, and anything that
// cannot be reduced to literals (expansions, substitutions, evaluating
// builtins, functions, globs) is refused with the reason. A level allowing
// the tool only through argument patterns needs every simple command to
// match one, and an argument deny pattern denies when any does; a refused
// line is denied wherever a pattern must vouch for it. WithoutArgument
// decides a call of a tool that takes no argument, which no argument
// pattern lets through. Grant decides a capability such as
// "shell.network", which only an allow pattern naming it exactly grants,
// never "*".
//
// A level may also list ask patterns: the third verdict, a call that a
// person approves each time (ask.go). Deny beats ask beats allow, at every
// level and over the chain, and ask never widens what allow lists let
// through; Tool and Target mark such a decision with Ask, Call decides one
// call with command patterns ("shell.run(git push *)") included.
//
// Two decisions the design leaves open are made here:
//
//   - An absent subagents allow list names no sub-agents. Delegation is opt-in,
//     so a Claude Code file without the field does not become a delegator to
//     every agent in the folder. The built-in general-purpose agent is the
//     exception: any agent that may delegate at all may use it unless one of its
//     own or its ancestors' subagents deny patterns (including "*") matches it,
//     or the global disabled list names it. An explicit allow list allows what
//     it matches, "*" allows every agent.
//   - Subagents deny lists are inherited down a branch, allow lists are not: a
//     project manager that denies "code-helper" keeps every descendant from
//     calling it, while each delegator still chooses its own targets. Tool
//     rules need no such rule, as every level of the chain applies to tools.
//
// Every function returns a Decision that names the level and pattern that made
// it, and a Reason sentence, so a denial can always be explained. When several
// patterns match, the most specific is quoted: an exact name, then the glob
// with the most literal characters, then a group, then "*".
package permissions
