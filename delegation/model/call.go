package model

import "context"

// Purposes of a model call. A provider that plays roles (script, demo) needs to
// tell an agent's own turn from a call the runtime makes on the agent's behalf.
const (
	PurposeTurn    = ""        // the agent's own turn
	PurposeSummary = "summary" // summarise the conversation for a sub-agent
)

// Call identifies one model call: which agent invocation it belongs to and why
// it is made. Providers that keep state per invocation (script plays an
// agent's turns from the first one for every new invocation) key it on
// Invocation; real providers ignore it.
type Call struct {
	// Invocation is unique per agent invocation within the process.
	Invocation string
	// Purpose is PurposeTurn or PurposeSummary.
	Purpose string
}

type callKey struct{}

// WithCall returns ctx carrying c for the provider to read.
func WithCall(ctx context.Context, c Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallFrom returns the Call carried by ctx, and false when there is none.
func CallFrom(ctx context.Context) (Call, bool) {
	c, ok := ctx.Value(callKey{}).(Call)
	return c, ok
}
