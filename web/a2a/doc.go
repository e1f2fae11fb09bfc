// Package a2a is agentry's A2A server (protocol 0.3, through the official
// Go SDK, github.com/a2aproject/a2a-go): every exposed agent (the expose:
// section) publishes an agent card and answers JSON-RPC message/send,
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
//   - The SDK owns the task (its id, its in-memory store, the event
//     stream); the run is ours. A task's status metadata and its outcome
//     artifact carry the run's id, and the run's root span says
//     caller.protocol a2a. (A task id cannot be the run id: the SDK makes
//     the id before the executor runs.)
//   - States follow the run: working while it goes, input-required while a
//     call waits for approval (answered where asks are always answered: the
//     web, `agentry approvals`, the API), then completed, canceled or
//     failed. tasks/cancel cancels the run, which ends cancelled.
//   - The message's first text part is the task; the other text and data
//     parts are its context (core.TaskWithContext), and a traceparent in
//     the message's metadata joins the caller's trace.
package a2a
