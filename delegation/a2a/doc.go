// Package a2a makes an A2A agent elsewhere a sub-agent here: the agents
// named under a2a: in agentry.yaml become delegation.RemoteAgent values,
// whose delegations go out as A2A tasks through the official Go SDK's
// client (github.com/a2aproject/a2a-go, protocol 0.3, JSON-RPC).
// docs/a2a.md has the user's side; web/a2a is the other direction
// (agentry's agents served over A2A).
//
// Decisions:
//
//   - Cards are fetched once, when the runtime is built (Resolve, every
//     card at once, each within a bound). An agent whose card cannot be
//     fetched is a warning naming the URL: with an id of its own in the
//     config it is still offered and its card is fetched again at its
//     first delegation (a failure then is that delegation's error, never
//     the run's); without one there is no name to offer it under, so it
//     is left out. Its id is otherwise the card's name, made an id.
//   - A delegation is message/stream when the card says streaming (the
//     task's id comes with the first event, so a cancel can name it, and
//     each state is a status line on the span), else a non-blocking
//     message/send followed by tasks/get until the task ends.
//   - The task is the first text part, the delegator's context (summary,
//     note) a second one, and context mode full's conversation a data
//     part {"messages": [...]}: an agentry on the far side (web/a2a) reads
//     the first as its task and the rest as context.
//   - A task ends the delegation by its state: completed is ok, failed
//     error, canceled cancelled, rejected denied. input-required and
//     auth-required are waited through (an agentry waits for its own
//     person's approval then); the delegation's limits bound the wait.
//   - A retried delegation (Temporal retries an activity whose worker was
//     lost) is not sent again when its engine names the task the lost
//     attempt started (delegation.RemoteAttempt, which the engine fills
//     in from what Send told its Started as soon as the remote named the
//     task): it reads the task with
//     tasks/get, then follows it with tasks/resubscribe when the card
//     says streaming (that gives only later events, hence the read
//     first), else tasks/get. A task the remote does not know is that
//     delegation's error, naming it: sending it again would have the
//     work done twice.
//   - When the delegation's context ends first (the run cancelled, a
//     timeout) the task is cancelled with tasks/cancel, on a context of its
//     own so the cancel itself is not cut short; unless the engine hands
//     the task to a later attempt (the context's cause is then
//     delegation.ErrHandedOver, delegation.HandedOver: on Temporal an
//     attempt the server gave up on, or whose worker stops),
//     which would follow the task it cancelled. A resumed task is cancelled
//     even when the context had ended before the attempt began (a retry
//     past its agent's timeout): the card is then read on a context of
//     its own too.
//   - The result is the text of the task's artifacts (else its last
//     message); an artifact's data part with run_id (an agentry's outcome)
//     names the remote run on the span.
//   - The message's metadata carries a traceparent naming the
//     delegation's invoke_agent span, so a remote that traces (an agentry
//     puts it on its run's root span) joins the delegator's trace.
//   - A bearer token, when configured, goes on the card request and on
//     every call (read from the environment variable the config names,
//     never written in agentry.yaml), and only to the card's own server:
//     the card is the remote side's to write, so one naming an endpoint
//     elsewhere is refused rather than handed the token.
//   - The permission views (agentry permissions, the web UI's graph and
//     explorer, the API) show remote agents as the runtime decides them:
//     Targets hands registry.Snapshot.Explain the runtime's own target
//     (delegation.RemoteAgent.Target) with its card's URL. serve gives
//     them the agents it resolved at start; agentry permissions, a quick
//     local command, reads no card (Offline): it knows the agents with an
//     id, and lists one named only by its card by its URL, undecided.
//   - A card's name cannot make it the built-in general-purpose agent
//     (which subagents rules allow unless they deny it) or another
//     entry's agent: the configured ids are taken first, whatever the
//     entries' order, so the views (Offline) and the runtime agree.
package a2a
