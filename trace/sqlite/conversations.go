package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentry/agentry/trace/conversation"
)

// AddConversationRun records that runID is the next run of conversation
// and appends its messages (those after what the conversation held), in
// one transaction. A run that starts a conversation has conversation ==
// runID.
func (s *Store) AddConversationRun(ctx context.Context, convID, runID string, msgs []conversation.Message) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("conversation %s: %w", convID, err)
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, `INSERT INTO conversation_runs (run_id, conversation_id, seq)
		SELECT ?, ?, COALESCE(MAX(seq), 0) + 1 FROM conversation_runs WHERE conversation_id = ?`, runID, convID, convID)
	if err != nil {
		return fmt.Errorf("conversation %s: add run %s: %w", convID, runID, err)
	}
	var next int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM conversation_messages WHERE conversation_id = ?`, convID).Scan(&next); err != nil {
		return fmt.Errorf("conversation %s: %w", convID, err)
	}
	for i, m := range msgs {
		var calls any
		if len(m.ToolCalls) > 0 {
			calls = string(m.ToolCalls)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO conversation_messages
			(conversation_id, seq, run_id, role, content, tool_calls, tool_call_id) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			convID, next+i+1, runID, m.Role, m.Content, calls, m.ToolCallID); err != nil {
			return fmt.Errorf("conversation %s: message %d: %w", convID, next+i+1, err)
		}
	}
	return tx.Commit()
}

// ConversationOf returns the conversation runID belongs to.
func (s *Store) ConversationOf(ctx context.Context, runID string) (string, error) {
	var id string
	err := s.read.QueryRowContext(ctx, `SELECT conversation_id FROM conversation_runs WHERE run_id = ?`, runID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("run %s: %w", runID, conversation.ErrNone)
	}
	return id, err
}

// ConversationMessages returns a conversation's messages in order.
func (s *Store) ConversationMessages(ctx context.Context, convID string) ([]conversation.Message, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT role, content, tool_calls, tool_call_id FROM conversation_messages
		WHERE conversation_id = ? ORDER BY seq`, convID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []conversation.Message
	for rows.Next() {
		var m conversation.Message
		var calls sql.NullString
		if err := rows.Scan(&m.Role, &m.Content, &calls, &m.ToolCallID); err != nil {
			return nil, err
		}
		if calls.Valid {
			m.ToolCalls = json.RawMessage(calls.String)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// Conversations maps each of runIDs that belongs to a conversation to it,
// with the run's place in it (1 for the run that started it).
func (s *Store) Conversations(ctx context.Context, runIDs []string) (map[string]ConversationRun, error) {
	out := make(map[string]ConversationRun, len(runIDs))
	for _, id := range runIDs {
		var c ConversationRun
		err := s.read.QueryRowContext(ctx, `SELECT r.conversation_id, r.seq,
			(SELECT COUNT(*) FROM conversation_runs o WHERE o.conversation_id = r.conversation_id)
			FROM conversation_runs r WHERE r.run_id = ?`, id).Scan(&c.ID, &c.Seq, &c.Runs)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[id] = c
	}
	return out, nil
}

// ConversationRun is a run's place in its conversation.
type ConversationRun struct {
	ID   string // the conversation: the ID of the run that started it
	Seq  int    // 1 for that run, 2 for the first follow-up, ...
	Runs int    // runs in the conversation so far
}

// ConversationIDs maps each of runIDs that belongs to a conversation to
// the conversation's ID (the runs list groups by it).
func (s *Store) ConversationIDs(ctx context.Context, runIDs []string) (map[string]string, error) {
	convs, err := s.Conversations(ctx, runIDs)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(convs))
	for id, c := range convs {
		out[id] = c.ID
	}
	return out, nil
}
