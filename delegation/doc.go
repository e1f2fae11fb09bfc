// Package delegation is agentry's runtime: it starts runs (Runtime.Start,
// Runtime.Run, Runtime.StartSession for a workflow), offers each agent the
// tools and sub-agents its permissions allow, carries out what its loop
// asks, and records everything as a trace.
//
// The loop itself is package loop: a deterministic state machine that an
// event steps and that returns the actions to take. This package holds its
// in-process driver (driver.go: each action done on the spot, or on a
// goroutine when others could be answered meanwhile) and the actions'
// effects, as methods of one invocation: a model call (attempt), a tool
// call (callTool), a delegation's checks, admission, child and end
// (delegate.go), the async calls of a turn (dispatch.go). Steps gives the
// same effects, one at a time from plain data (a Frame), to the Temporal
// engine (delegation/temporal), which drives the same machine as workflow
// code: one loop, two drivers, one set of effects. docs/architecture.md
// maps the packages: scheduling (sched), the orchestrator (orchestrator),
// budgets, approvals and hooks (control).
//
// Decisions that shape it (docs/runtime.md has the long form):
//
//   - A run takes one registry snapshot at Start, so every branch sees the
//     same agents even while files change.
//   - Permissions are enforced twice: the model is offered only allowed tools
//     (sorted by name, so provider prompt caches hit) and a delegate tool whose
//     agent enum lists only allowed targets; every call is decided again when
//     it runs, and a denial goes back to the model as a result with its reason.
//   - A child's failure, timeout or denial is a result for its parent, never
//     the end of the run. Run timeouts, token budget and Cancel end every
//     branch through the context, whose cause decides the status each span
//     ends with (timeout, error or cancelled); the driver tells the loop
//     (loop.Event.Stop), which starts nothing after it.
//   - A panic in a tool, a model or an MCP call fails only its span (the
//     value and a short stack on it); the runtime's goroutines recover too,
//     so one bad tool or provider cannot end the process or other runs.
//   - A refused delegation says why on its span (AttrRefused), and an agent
//     that names sub-agents but is not offered the delegate tool at its
//     depth gets an EventDelegationWithheld event, so no limit is silent.
//   - What an invocation may use (its permission chain, tools, the sorted
//     tool list its model is offered, every target decision and the
//     delegate tool) is worked out once per registry snapshot and branch
//     (offers.go) and reused by every invocation there and by the run-time
//     check of each call: same inputs, same answer. Features a run does not
//     use (hooks, asks, budgets, streaming) are skipped with a nil or flag
//     check per call.
//   - Runtime.Run runs on the caller's goroutine, and a lone delegation's
//     child on its parent's: the in-process driver does an action on the
//     spot when nothing else could be answered meanwhile, so a plain tree
//     starts no goroutine. Drivers and their machines are pooled.
//   - A parent's per-turn cost does not grow with its conversation: the
//     conversation is appended to in place and passed to the model as is;
//     only context mode full copies it, once per such delegation.
//   - A delegation costs a few microseconds next to model calls of
//     seconds, and what it costs is allocations, clock reads and copies
//     (issue 25's guards, docs/runtime.md). So each moment is read from the
//     clock once (a delegation's start is its span's, its duration ends
//     where its span does); the map a caller of finish hands over becomes
//     the span's end record instead of being copied into another; the
//     driver keeps a turn's delegations in one slice, presized to the
//     batch and reused next turn (the machine waits for every EvDone
//     before a turn ends, and a driver that panicked with actions under way
//     is dropped, not pooled). A child on a goroutine of its own starts
//     with a 2 KB stack that grows by copying, so the per-invocation path
//     takes registry.Agent (592 bytes) by pointer and the driver holds its
//     machine by pointer: frames that copied them grew every child's stack.
//     The same holds for the driver's own frames: a batch child's model
//     call runs under its driver's do, so the work of an action done on
//     the spot lives in the driver (driver.spot), not in do's frame. With
//     it in the frame (1.4 KB) a fan-out child's goroutine outgrew 8 KB
//     and was copied to 16 KB, and the GC scanned twice the stack per
//     live child (docs/runtime.md, Speed).
//   - Hooks (Config.Hooks, package hooks) run at six points: pre_tool after
//     the permission check (for a call that is made: none on an ended
//     context, which runTool runs no call on), post_tool after a successful call,
//     subagent_start after admission, subagent_stop, run_start and run_end
//     on the root span. A block is a denial with the hook's reason
//     (docs/hooks.md). Config.Prices puts cost_usd on chat spans
//     (docs/cost.md).
//   - A call whose permission verdict is ask waits in its own branch for an
//     answer (approval.go, control.Wait, docs/approvals.md); a budget that
//     trips stops new model calls and ends the run with a partial-progress
//     report (budget.go, control.BudgetReport, docs/cost.md).
//   - Seed 001's limit hierarchy (orchestrator.Limits) is the default of
//     orchestrator conversations (Config.OrchestratorLimits), not of every
//     run: a plain tree keeps tree-wide caps that queue, depth, turns and
//     budgets. A breaker is a conversation's and counts only failures of
//     what a tool depends on; every limit ends with one report shape.
//   - A sub-agent may run elsewhere (Config.Remote, remote.go; an A2A
//     agent through delegation/a2a): it is decided, admitted, hooked and
//     approved as a file's agent is, and its call is one invoke_agent span
//     under the delegate call instead of a loop of its own. A file's agent
//     with the same id wins.
package delegation
