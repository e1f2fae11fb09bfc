package semconv

// Well-known event names and their attribute keys.
const (
	// EventRetry is on a chat span that failed transiently, before the
	// backoff: EventAttrAttempt is the retry_attempt of the call to come,
	// EventAttrWaitMS the backoff, EventAttrError what failed.
	EventRetry = "retry"
	// EventQueued is on a delegation's execute_tool span that must wait for
	// a concurrency slot; EventAttrCap says which cap (CapAgent, CapRun,
	// CapTurn) and EventAttrLimit its size.
	EventQueued = "queued"
	// EventAdmitted follows EventQueued when the delegation gets its slot,
	// with the same cap and EventAttrWaitedMS.
	EventAdmitted = "admitted"

	EventAttrAttempt  = "attempt"
	EventAttrWaitMS   = "wait_ms"
	EventAttrError    = "error"
	EventAttrCap      = "cap"
	EventAttrLimit    = "limit"
	EventAttrAgent    = "agent"
	EventAttrWaitedMS = "waited_ms"
)

// Caps a delegation can wait for, the values of EventAttrCap.
const (
	CapAgent = "max_concurrent" // the delegating agent's subagents.max_concurrent
	CapRun   = "run"            // the run-wide delegation.max_concurrent
	CapTurn  = "turn_agents"    // limits.turn_agents: background agents of one model turn at once
)

// Hook events (DESIGN §10, docs/hooks.md).
const (
	// EventHook is on the span of an action a hook ran for (the tool's
	// execute_tool span, the delegation's, the root invoke_agent span for
	// run_start and run_end): one event per hook command run.
	EventHook = "hook"
	// EventHook attributes.
	EventAttrHook       = "hook" // the point: pre_tool, post_tool, subagent_start, ...
	EventAttrCommand    = "command"
	EventAttrDurationMS = "duration_ms"
	EventAttrVerdict    = "verdict" // allow | block
	EventAttrReason     = "reason"
)

// Approval events, on a waiting call's execute_tool span (DESIGN §10,
// docs/approvals.md).
const (
	// EventApprovalRequested is on the span of a call that waits for a
	// person's answer: EventAttrApprovalID, EventAttrReason (why it asks).
	EventApprovalRequested = "approval_requested"
	// EventApproval is the answer: EventAttrVerdict (approved | denied),
	// EventAttrDecidedBy, EventAttrForRun, EventAttrReason (the person's
	// note), at the time it was decided.
	EventApproval = "approval"

	EventAttrApprovalID = "approval_id"
	EventAttrDecidedBy  = "decided_by"
	EventAttrForRun     = "for_run"
	EventAttrAsk        = "ask" // the permission reason on a request
)

// EventRemoteStatus is on the invoke_agent span of a delegation to a
// remote agent (AttrRemoteProtocol): one event per state the remote task
// reports while it goes (submitted, working, input-required, ...), with
// EventAttrState, EventAttrMessage when the remote said something, and
// the task's id (AttrA2ATaskID) once known.
const (
	EventRemoteStatus = "remote_status"
	EventAttrState    = "state"
	EventAttrMessage  = "message"
)
