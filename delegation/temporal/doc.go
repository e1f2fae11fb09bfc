// Package temporal runs agentry runs on Temporal (engine: temporal): a run is
// a workflow, each delegation a child workflow, each model call and each tool
// call an activity. It is the only package that imports the Temporal SDK.
//
// Decisions that shape it (docs/temporal.md has the long form):
//
//   - One seam: every activity is a delegation.Steps step, so permissions,
//     depth, hooks, models, tools and spans are the in-process runtime's code;
//     the workflows hold only the loop (turns, tool order, the batch's
//     depends_on and max_concurrent, timeouts) as plain data (a Frame).
//   - Workflow code is deterministic: no I/O, no clock, no randomness. Step
//     keys are the workflow ID plus a counter, so a step retried after a lost
//     worker gets the same key, hence the same span IDs (the store upserts:
//     a retried step overwrites its first record) and the same idempotency
//     key for a tool (run/invocation/call, tool.IdempotencyKey).
//   - Two kinds of retry. The agent's retry policy (attempts, backoff,
//     Retry-After) is played by the workflow with durable timers, each
//     attempt its own Turn activity and chat span, as in-process. Temporal's
//     retry policy covers only a lost worker (heartbeat timeout) and repeats
//     the same attempt; a model provider that keeps per-invocation state
//     (script) is told how many calls came before (model.Request.Calls).
//   - The agent's timeout is a workflow timer that cancels the invocation
//     (status timeout) and bounds each of its activities; the run timeout is
//     the same at the root. Cancel is workflow cancellation: children are
//     cancelled and wait to close their spans (WaitForCancellation).
//   - An activity completes only after its spans are flushed to the trace
//     store, so a worker killed after a step cannot lose that step's record.
//   - Token and agent totals are summed up the tree of workflows (Tally) and
//     recorded on the run at its end, not live.
//   - An approval is a durable wait: a child workflow per asked call, named
//     after its row in the trace store, which is the one answer; a signal
//     only says "read it now" (approval.go).
//   - A budget's ledger is the root workflow: every workflow asks it, by
//     signal, before each model call and delegation (budget.go).
//   - Runs are trace.Run.Durable: no process owns them, so no reaper marks
//     them interrupted when a worker ends.
package temporal
