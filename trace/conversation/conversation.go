// Package conversation keeps conversations (agentry chat, run --continue,
// the run page's reply box) beside the traces: which runs belong to one,
// in order, and its root agent's messages, so a follow-up starts from
// them. Sub-agents' messages stay in the trace, out of the conversation's
// context.
//
// A conversation is named by the ID of the run that started it. Store is
// the contract, tracetest.RunConversationTests its suite; trace/sqlite,
// trace/postgres and trace/memory implement it, Memory in this package
// being the one in process memory.
package conversation

import (
	"context"
	"encoding/json"
	"errors"
)

// Message is one message of a conversation as stored: the root agent's
// user, assistant and tool messages, tool calls as their JSON.
type Message struct {
	Role       string
	Content    string
	ToolCalls  json.RawMessage // nil when the message has none
	ToolCallID string
}

// ErrNone is returned by ConversationOf for a run that belongs to no
// conversation.
var ErrNone = errors.New("run belongs to no conversation")

// Store keeps conversations. Implementations are safe for concurrent use,
// by several processes too (two serve instances may append to one
// conversation at once).
type Store interface {
	// AddConversationRun records that runID is the next run of
	// conversation and appends its messages, in one transaction. A run
	// that starts a conversation has conversation == runID.
	AddConversationRun(ctx context.Context, conversation, runID string, msgs []Message) error
	// ConversationOf returns the conversation runID belongs to, or ErrNone.
	ConversationOf(ctx context.Context, runID string) (string, error)
	// ConversationMessages returns a conversation's messages in order.
	ConversationMessages(ctx context.Context, conversation string) ([]Message, error)
	// ConversationIDs maps each of runIDs that belongs to a conversation
	// to the conversation's ID (the runs list groups by it).
	ConversationIDs(ctx context.Context, runIDs []string) (map[string]string, error)
}
