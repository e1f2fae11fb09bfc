// Package a2a is agentry's A2A server (protocol 0.3, through the official
// Go SDK, github.com/a2aproject/a2a-go): every exposed agent and workflow
// (the expose: section) publishes an agent card and answers JSON-RPC message/send,
// message/stream (SSE), tasks/get and tasks/cancel, each message a run
// started like one from the web's form. docs/a2a.md has the user's side.
//
// Decisions:
//
//   - One endpoint per agent, /a2a/AGENT, with its card at
//     /a2a/AGENT/.well-known/agent-card.json; /.well-known/agent-card.json
//     is the card of the first exposed agent by name. The cards' URLs are
//     built from the request's host, so they are right behind any name the
//     server is reached by. All of it is behind serve's token.
//   - An exposed workflow (expose.workflows) is an endpoint of its own,
//     /a2a/workflow-NAME (its MCP tool's name), with a card whose one
//     skill is the workflow: a card per workflow rather than a skill on
//     some agent's card, since an A2A message goes to an endpoint, not to
//     a skill. The message's data parts are its inputs (a workflow of one
//     input takes the text); the task ends with core.WorkflowOutcome.
//   - The SDK owns the task (its id, its in-memory store, the event
//     stream); the run is ours. A task's status metadata and its outcome
//     artifact carry the run's id, and the run's root span says
//     caller.protocol a2a. A task id is not the run id: a2a-go v0.3.3
//     makes it (a2a.NewTaskID, a UUID, in defaultRequestHandler's
//     handleSendMessage) before the executor runs, with no option to
//     supply it, and a run's id is the runtime's (32 hex digits, the
//     OpenTelemetry trace id). So tasks/get, tasks/cancel and
//     tasks/resubscribe take either: byRunID maps a run id to its task's
//     (kept, like the SDK's tasks, while the server runs).
//   - States follow the run: working while it goes, input-required while a
//     call waits for approval (answered where asks are always answered: the
//     web, `agentry approvals`, the API), then completed, canceled or
//     failed. tasks/cancel cancels the run, which ends cancelled.
//   - The message's first text part is the task; the other text and data
//     parts are its context (core.TaskWithContext), and a traceparent in
//     the message's metadata joins the caller's trace.
package a2a
