package model

// Purposes of a model call (Request.Purpose). A provider that plays roles
// (script, demo) needs to tell an agent's own turn from a call the runtime
// makes on the agent's behalf.
const (
	PurposeTurn    = ""        // the agent's own turn
	PurposeSummary = "summary" // summarise the conversation for a sub-agent
)
