// Package temporal runs agentry runs on Temporal (engine: temporal): a run is
// a workflow, each delegation a child workflow, each model call and each tool
// call an activity. It is the only package that imports the Temporal SDK.
//
// Decisions that shape it (docs/temporal.md has the long form):
//
//   - One loop, two drivers: an invocation workflow drives package loop's
//     machine (driver.go, actions.go), the one the in-process runtime
//     drives, so turns, caps, batches, background agents, streaming and
//     limits are decided once for both engines. Every effect is a
//     delegation.Steps step, the in-process runtime's own code for
//     permissions, depth, hooks, models, tools and spans. A model call and
//     a tool call are activities; the steps that only check and record
//     (opening and ending spans, a delegation's checks, its start and
//     finish) are local activities, run by the worker of the workflow task
//     with nothing scheduled on the server; a delegation's child is a
//     child workflow. The workflow types are versioned by name
//     (agentry.Run.v2, agentry.Invocation.v2): a history of the first
//     shape is served only by a worker of the agentry that started it.
//   - Workflow code is deterministic: no I/O, no clock, no randomness. Step
//     keys are the workflow ID plus a counter, so a step retried after a lost
//     worker gets the same key, hence the same span IDs (the store upserts:
//     a retried step overwrites its first record) and the same idempotency
//     key for a tool (run/invocation/call, tool.IdempotencyKey).
//   - Two kinds of retry. The agent's retry policy (attempts, backoff,
//     Retry-After) is the loop's, with durable timers between attempts,
//     each attempt its own Turn activity and chat span, as in-process. Temporal's
//     retry policy covers only a lost worker (heartbeat timeout) and repeats
//     the same attempt; a model provider that keeps per-invocation state
//     (script) is told how many calls came before (model.Request.Calls).
//   - Only the workflow's cancel ends a call. An activity whose context
//     ends for another reason (its worker stops, the server timed the
//     attempt out) leaves its work to its retry and fails retryably:
//     Turn and Tool their call, made again with the same key, Remote its
//     remote task (the cause delegation.ErrHandedOver, attemptCtx: the
//     call's span stays open, flushed running, for the retry's, which has
//     the same ID, to end), PlayWorkflow a run's agents.
//   - The last attempt: an activity does not leave work to a retry on
//     the last attempt its retry policy allows, as activity.Info says the
//     server runs it (an operator may change it; 0 attempts is unlimited):
//     no retry would come, so it ends that work as a cancel does, with the
//     cause delegation.ErrLastAttemptLost (status error). A worker killed
//     on that attempt does nothing: the workflow hears the server's
//     timeout, no retry left, and ends the work itself (Remote, Turn,
//     Tool: the local activity RemoteLost, TurnLost, ToolLost, the same
//     step on the same key on an ended context, Loss.ctx; a YAML
//     workflow run: PlayWorkflow once more, playing the run only to end
//     it, lostRun). An activity whose worker is killed as the workflow
//     stops it (cancel, timeout) is timed out too (no cancelled activity
//     is retried), and ended the same way with the stop's words: the
//     call's span ends cancelled (or timeout) and a remote task is
//     cancelled (driver.loss reads both cases; Remote's end under the
//     stop is named RemoteCancelLost); a workflow run is played once
//     more on a context the cancel does not reach, with the stop as its
//     cause.
//   - The agent's timeout is a workflow timer that cancels the invocation
//     (status timeout) and bounds each of its activities; the run timeout is
//     the same at the root. Cancel is workflow cancellation: children are
//     cancelled and wait to close their spans (WaitForCancellation).
//   - A step completes only after its spans are flushed to the trace
//     store, so a worker killed after a step cannot lose that step's
//     record; a local activity lost with its worker runs again on the next
//     with the same key, hence the same span IDs.
//   - Token and agent totals are summed up the tree of workflows (Tally) and
//     recorded on the run at its end, not live.
//   - An approval is a durable wait: a child workflow per asked call, named
//     after its row in the trace store, which is the one answer; a signal
//     only says "read it now" (approval.go).
//   - A budget's ledger is the root workflow: every workflow asks it, by
//     signal, before each model call and delegation (budget.go).
//   - Runs are trace.Run.Durable: no process owns them, so no reaper marks
//     them interrupted when a worker ends.
//   - YAML workflows (workflows.go): the engine of delegation/workflow is
//     concurrent Go code (goroutines, timers, expr), not workflow code, and
//     a second engine written as workflow code would drift from it. So one
//     activity, PlayWorkflow, runs the engine itself, and every agent the
//     engine invokes is an agentry.Invocation workflow that the activity
//     starts through the worker's client, with an ID made of the run, the
//     step's span, the agent, the task and how many identical calls came
//     before. A worker lost mid-run is replaced by a retry of the activity
//     that plays the engine again from the top: each invocation already
//     started is found by its ID and its result read (or waited for), so
//     no completed agent runs again; the engine's own spans have IDs from
//     the same parts and are rewritten in place. Invocations are not child
//     workflows (an activity cannot start children): Cancel reaches them
//     through the activity, a terminated run leaves them to finish.
//   - Conversations (run --continue, chat, the reply box): the request
//     carries the conversation's ID and messages; the run workflow returns
//     the root agent's messages and the client records them in the trace
//     store's conversation, as in-process.
package temporal
