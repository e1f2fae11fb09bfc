// Package loop is the agent loop of one invocation as a deterministic state
// machine, after etcd-io/raft: Machine.Step takes an event (the model
// answered, a tool returned, a delegation ended, the run stopped) and
// returns the actions that follow (call the model, run these tools, check
// and admit these delegations, wait for an answer, end with this status).
// The machine does no I/O, starts no goroutine and reads no clock; its
// driver carries out the actions and reports each one's result as an
// Event. Two drivers run it: the in-process runtime (package delegation,
// goroutines) and the Temporal engine (delegation/temporal, workflow code
// with model and tool calls as activities). A rule of the loop lives here
// once and reaches both engines; docs/architecture.md says where a new one
// goes.
//
// What the machine decides:
//
//   - Turns: max_turns (or an orchestrator's limits.orchestrator_turns,
//     whose last turn's calls are not run), retries of transient model
//     errors after the wait the driver reports, no model call once the
//     run's budget is spent (ActBudget), a text answer that is empty is an
//     error.
//   - A turn's tool calls: max_tool_calls and what the ledger grants
//     (ActCalls: the conversation window, a dispatcher's per-turn cap) may
//     run fewer than asked; the rest are answered "not run" and the
//     invocation stops with status limit and its partial-progress report.
//     Plain tools run one by one in call order, then the async calls
//     (ActAsync: get_skill, dispatch_agent, background and streamed
//     delegations), then the delegate calls as one batch, then
//     get_agent_results.
//   - The batch: a DAG (depends_on, sched.Link) whose ready calls are
//     checked and admitted one at a time in call order, under the agent's
//     max_concurrent (a line the machine keeps) and then a run-wide slot
//     (ActSlot, the driver's); a sequential batch runs one call after the
//     other; a call whose dependency failed is skipped. The invocation
//     gives its own run-wide slot up while it waits (ActRelease,
//     ActAcquire), so nested trees cannot deadlock on the cap.
//   - Background agents: each waits for its depends_on agents (a
//     dispatch), its turn's line (limits.turn_agents) and the agent's
//     max_concurrent, shared with the batches; get_agent_results, a text
//     answer given while agents are uncollected, and a parallel_streaming
//     turn wait for them; an invocation that ends stops those still
//     running (ActStopJobs) and ends those still waiting.
//   - Stopping: an event that carries Stop (the run was cancelled or
//     timed out) ends what waits in a line, cuts waits short, and ends the
//     invocation at its next check; nothing starts after it.
//
// What the driver decides: how an action is carried out (on the spot, on a
// goroutine, as an activity, a local activity or a child workflow), the
// words of an error it met, and its clock (Event.At, when Clocked).
package loop
