package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/agentry/agentry/trace/conversation"
)

var _ conversation.Store = (*Store)(nil)

// AddConversationRun records that runID is the next run of conversation
// and appends its messages, in one transaction; see conversation.Store.
// Two processes may add to one conversation at once (two serve instances
// answering replies): a transaction advisory lock on the conversation makes
// them take turns, so each reads the other's last numbers. The lock's
// single 64-bit key space is apart from the owner locks' pairs of keys.
func (s *Store) AddConversationRun(ctx context.Context, convID, runID string, msgs []conversation.Message) error {
	conv := text(convID)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, $2))", conv, int64(s.owner.class)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO conversation_runs (run_id, conversation_id, seq)
SELECT $1, $2, COALESCE(MAX(seq), 0) + 1 FROM conversation_runs WHERE conversation_id = $2`, text(runID), conv); err != nil {
			return fmt.Errorf("add run %s: %w", runID, err)
		}
		if len(msgs) == 0 {
			return nil
		}
		var c messageColumns
		for _, m := range msgs {
			c.add(m)
		}
		_, err := tx.Exec(ctx, `INSERT INTO conversation_messages
    (conversation_id, seq, run_id, role, content, tool_calls, tool_call_id)
SELECT $1, base.n + u.i, $2, u.role, u.content, u.tool_calls, u.tool_call_id
FROM (SELECT COALESCE(MAX(seq), 0) AS n FROM conversation_messages WHERE conversation_id = $1) AS base,
    unnest($3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY
    AS u(role, content, tool_calls, tool_call_id, i)`,
			conv, text(runID), c.role, c.content, c.calls, c.callID)
		if err != nil {
			return fmt.Errorf("messages: %w", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("conversation %s: %w", convID, err)
	}
	return nil
}

// messageColumns holds messages column by column, for unnest.
type messageColumns struct {
	role, content, callID []string
	calls                 []*string
}

func (c *messageColumns) add(m conversation.Message) {
	var calls *string
	if len(m.ToolCalls) > 0 {
		s := text(string(m.ToolCalls))
		calls = &s
	}
	c.role, c.content = append(c.role, text(m.Role)), append(c.content, text(m.Content))
	c.calls, c.callID = append(c.calls, calls), append(c.callID, text(m.ToolCallID))
}

// ConversationOf returns the conversation runID belongs to; see
// conversation.Store.
func (s *Store) ConversationOf(ctx context.Context, runID string) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, "SELECT conversation_id FROM conversation_runs WHERE run_id = $1", text(runID)).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("run %s: %w", runID, conversation.ErrNone)
	}
	if err != nil {
		return "", fmt.Errorf("conversation of run %s: %w", runID, err)
	}
	return id, nil
}

// ConversationMessages returns a conversation's messages in order; see
// conversation.Store.
func (s *Store) ConversationMessages(ctx context.Context, convID string) ([]conversation.Message, error) {
	rows, err := s.pool.Query(ctx, `SELECT role, content, tool_calls, tool_call_id FROM conversation_messages
WHERE conversation_id = $1 ORDER BY seq`, text(convID))
	if err != nil {
		return nil, fmt.Errorf("conversation %s: %w", convID, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (conversation.Message, error) {
		var m conversation.Message
		var calls *string
		err := row.Scan(&m.Role, &m.Content, &calls, &m.ToolCallID)
		if calls != nil {
			m.ToolCalls = json.RawMessage(*calls)
		}
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("conversation %s: %w", convID, err)
	}
	return out, nil
}

// ConversationIDs maps each of runIDs that belongs to a conversation to
// the conversation's ID; see conversation.Store.
func (s *Store) ConversationIDs(ctx context.Context, runIDs []string) (map[string]string, error) {
	ids := make([]string, len(runIDs))
	for i, id := range runIDs {
		ids[i] = text(id)
	}
	rows, err := s.pool.Query(ctx, "SELECT run_id, conversation_id FROM conversation_runs WHERE run_id = ANY($1)", ids)
	if err != nil {
		return nil, fmt.Errorf("conversations of runs: %w", err)
	}
	out := make(map[string]string, len(runIDs))
	var run, conv string
	if _, err := pgx.ForEachRow(rows, []any{&run, &conv}, func() error { out[run] = conv; return nil }); err != nil {
		return nil, fmt.Errorf("conversations of runs: %w", err)
	}
	return out, nil
}
