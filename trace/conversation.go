package trace

import (
	"context"
	"encoding/json"
	"errors"
)

// ConversationMessage is one message of a conversation as stored: the root
// agent's user, assistant and tool messages, tool calls as their JSON.
// Sub-agents' messages stay in the trace, not in the conversation.
type ConversationMessage struct {
	Role       string
	Content    string
	ToolCalls  json.RawMessage // nil when the message has none
	ToolCallID string
}

// ErrNoConversation is returned by ConversationOf for a run that belongs
// to no conversation.
var ErrNoConversation = errors.New("run belongs to no conversation")

// ConversationStore keeps conversations (agentry chat, run --continue, the
// run page's reply box) beside the traces: which runs belong to one, and
// its root agent's messages. It is optional: a store without it runs every
// run on its own, and the commands that continue one say so.
type ConversationStore interface {
	// AddConversationRun records that runID is the next run of
	// conversation and appends its messages, in one transaction. A run
	// that starts a conversation has conversation == runID.
	AddConversationRun(ctx context.Context, conversation, runID string, msgs []ConversationMessage) error
	// ConversationOf returns the conversation runID belongs to, or
	// ErrNoConversation.
	ConversationOf(ctx context.Context, runID string) (string, error)
	// ConversationMessages returns a conversation's messages in order.
	ConversationMessages(ctx context.Context, conversation string) ([]ConversationMessage, error)
	// ConversationIDs maps each of runIDs that belongs to a conversation
	// to the conversation's ID (the runs list groups by it).
	ConversationIDs(ctx context.Context, runIDs []string) (map[string]string, error)
}
