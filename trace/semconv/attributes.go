package semconv

// Well-known span attribute keys. Span attributes are an open map; these are
// the keys the CLI, the UI and the DESIGN §8 contract rely on.
const (
	AttrTask             = "task"
	AttrContextMode      = "context_mode"
	AttrContextPassed    = "context_passed"
	AttrResult           = "result"
	AttrEffectiveTools   = "effective_tools"
	AttrPermissions      = "permission_decisions"
	AttrTargetAgent      = "target_agent"
	AttrDelegationStatus = "delegation_status"
	AttrRetryAttempt     = "retry_attempt"
	AttrModel            = "model"
	AttrResponseModel    = "response_model" // the model that answered, as the provider names it
	AttrToolName         = "tool_name"
	AttrToolCallID       = "tool_call_id" // the model's ID for the call
	AttrToolArguments    = "tool_arguments"
	AttrToolResult       = "tool_result"
	AttrQueuedMS         = "queued_ms" // time a delegation waited for a concurrency slot
)

// Cost attributes (DESIGN §10, docs/cost.md).
const (
	// AttrCostUSD is a chat span's cost in US dollars, from the configured
	// price table; absent when the model has no price.
	AttrCostUSD = "cost_usd"
	// AttrCachedInputTokens is, on a chat span, the part of its input
	// tokens the provider read from its prompt cache (Anthropic's cache
	// reads, OpenAI's cached prompt tokens); absent when none were.
	AttrCachedInputTokens = "cached_input_tokens"
)

// AttrAgentVersion is the attribute of an invoke_agent span that names the
// version of the agent's file it ran with: the Hash of the file's content
// (registry.Agent.Version), the key of a trace.Version in a trace.VersionStore.
const AttrAgentVersion = "agent_version"

// Attributes of a YAML workflow run's root span (invoke_workflow): the
// workflow's name, its file, and the version of the file it ran (the Hash
// of the content it was parsed from, the key of a trace.Version of kind
// workflow), as agent_version is an agent's.
const (
	AttrWorkflow        = "workflow"
	AttrWorkflowFile    = "workflow_file"
	AttrWorkflowVersion = "workflow_version"
)

// AttrReplay is on each execute_tool span of a replayed run that the
// replay intercepted: how it was answered ("recorded", "refused", "live";
// delegation/replay).
const AttrReplay = "replay"

// Tags on a run's root span that say why the run was made
// (delegation.Request.Attributes): the run a replay replays
// (delegation/replay), the eval suite and case a run was made for
// (delegation/eval).
const (
	AttrReplayOf  = "replay_of"
	AttrEvalSuite = "eval_suite"
	AttrEvalCase  = "eval_case"
)

// Attributes of a delegation to a remote agent (an A2A agent named under
// a2a: in agentry.yaml, docs/a2a.md): on its invoke_agent span, which
// stands for the work done elsewhere, and on the delegate call's
// execute_tool span.
const (
	// AttrRemoteProtocol is how the agent was reached: "a2a".
	AttrRemoteProtocol = "remote.protocol"
	// AttrA2ACardURL is the agent card's URL, as configured.
	AttrA2ACardURL = "a2a.card_url"
	// AttrA2ATaskID is the remote task's id: what tasks/get and
	// tasks/cancel name on the remote side.
	AttrA2ATaskID = "a2a.task_id"
	// AttrA2AContextID is the remote task's context id.
	AttrA2AContextID = "a2a.context_id"
	// AttrA2ATaskState is the remote task's last state (completed,
	// failed, canceled, rejected, ...).
	AttrA2ATaskState = "a2a.task_state"
	// AttrRemoteRunID is the remote run's id when the remote agent is an
	// agentry (its outcome artifact names it): the run to open there.
	AttrRemoteRunID = "remote.run_id"
)

// Attributes of the root span of a run an outside tool asked for through
// one of serve's doors (MCP, A2A, the JSON API; web/core's Caller,
// docs/mcp-server.md): who asked.
const (
	AttrCallerProtocol = "caller.protocol" // mcp, a2a or api
	AttrCallerName     = "caller.name"     // MCP's clientInfo.name
	AttrCallerVersion  = "caller.version"  // MCP's clientInfo.version
)
