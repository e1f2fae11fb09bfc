// Package delegation is agentry's runtime: it runs an agent's loop against a
// model, offers it the tools and sub-agents its permissions allow, runs its
// delegate calls under the run's limits, and records everything as a trace.
//
// Decisions that shape it (docs/runtime.md has the long form):
//
//   - A run takes one registry snapshot at Start, so every branch sees the
//     same agents even while files change.
//   - Permissions are enforced twice: the model is offered only allowed tools
//     (sorted by name, so provider prompt caches hit) and a delegate tool whose
//     agent enum lists only allowed targets; every call is decided again when
//     it runs, and a denial goes back to the model as a result with its reason.
//   - The delegate calls of one model turn form a batch, run per the agent's
//     execution mode; id/depends_on make it a DAG. Ready calls queue for the
//     delegator's max_concurrent and then the run-wide cap in call order
//     (FIFO), never rejected. A delegator gives its run-wide slot back while
//     it waits for its batch, so nested trees cannot deadlock on the cap.
//   - A child's failure, timeout or denial is a result for its parent, never
//     the end of the run. Run timeouts, token budget and Cancel end every
//     branch through the context, whose cause decides the status each span
//     ends with (timeout, error or cancelled).
//   - A panic in a tool, a model or an MCP call fails only its span (the
//     value and a short stack on it); the runtime's goroutines recover too,
//     so one bad tool or provider cannot end the process or other runs.
//   - Nothing starts after Cancel: admission checks the context before it
//     takes a slot, and a slot handed over as the context ends is passed on.
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
//   - Runtime.Run runs on the caller's goroutine; a batch's children run on
//     goroutines of their own, with small stack frames on the way down so
//     a new goroutine's stack need not be copied as it deepens.
//   - A parent's per-turn cost does not grow with its conversation: the
//     conversation is appended to in place and passed to the model as is;
//     only context mode full copies it, once per such delegation.
//   - Hooks (Config.Hooks, package hooks) run at six points: pre_tool after
//     the permission check, post_tool after a successful call,
//     subagent_start after admission, subagent_stop, run_start and run_end
//     on the root span. A block is a denial with the hook's reason
//     (docs/hooks.md). Config.Prices puts cost_usd on chat spans
//     (docs/cost.md).
//   - A call whose permission verdict is ask waits in its own branch for an
//     answer (approval.go, docs/approvals.md); a budget that trips stops new
//     model calls and ends the run with a partial-progress report
//     (budget.go, docs/cost.md).
//   - Seed 001's limit hierarchy (hierarchy.go, window.go, breaker.go) is
//     the default of orchestrator conversations (Config.OrchestratorLimits),
//     not of every run: a plain tree keeps tree-wide caps that queue, depth,
//     turns and budgets. Per-turn caps count one model turn and queue; a
//     breaker is a conversation's and counts only failures of what a tool
//     depends on; every limit ends with one report shape (progress.go).
//   - Steps (steps.go) exposes the agent loop one step at a time from plain
//     data, for a durable engine (delegation/temporal, docs/temporal.md): the
//     steps call this package's code, so the engine does not copy its rules.
//     The in-process loop does not go through Steps.
package delegation
