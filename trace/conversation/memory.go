package conversation

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// Memory is a Store held in process memory, the conversations of
// trace/memory. Safe for concurrent use; the zero value is empty and ready.
type Memory struct {
	mu   sync.RWMutex
	of   map[string]string    // run ID → conversation
	msgs map[string][]Message // conversation → its messages in order
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty Memory.
func NewMemory() *Memory { return &Memory{} }

// AddConversationRun records a run of a conversation and its messages; see
// Store.
func (m *Memory) AddConversationRun(ctx context.Context, conversation, runID string, msgs []Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.of == nil {
		m.of, m.msgs = map[string]string{}, map[string][]Message{}
	}
	if _, ok := m.of[runID]; ok {
		return fmt.Errorf("conversation %s: run %s is already in one", conversation, runID)
	}
	m.of[runID] = conversation
	for _, msg := range msgs {
		msg.ToolCalls = slices.Clone(msg.ToolCalls)
		m.msgs[conversation] = append(m.msgs[conversation], msg)
	}
	return nil
}

// ConversationOf returns the conversation runID belongs to; see Store.
func (m *Memory) ConversationOf(ctx context.Context, runID string) (string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	c, ok := m.of[runID]
	if !ok {
		return "", fmt.Errorf("run %s: %w", runID, ErrNone)
	}
	return c, nil
}

// ConversationMessages returns a conversation's messages in order; see
// Store.
func (m *Memory) ConversationMessages(ctx context.Context, conversation string) ([]Message, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return slices.Clone(m.msgs[conversation]), nil
}

// ConversationIDs maps runs to their conversations; see Store.
func (m *Memory) ConversationIDs(ctx context.Context, runIDs []string) (map[string]string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make(map[string]string, len(runIDs))
	for _, id := range runIDs {
		if c, ok := m.of[id]; ok {
			out[id] = c
		}
	}
	return out, nil
}
