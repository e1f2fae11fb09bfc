package sqldb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentry/agentry/trace/conversation"
)

var _ conversation.Store = (*Tables)(nil)

// rowsPerInsert bounds a multi-row INSERT's rows and an IN list's values,
// well inside both databases' limits on a statement's parameters.
const rowsPerInsert = 500

// AddConversationRun records that runID is the next run of the
// conversation convID and appends its messages, numbered after what the
// conversation held, in one transaction; see conversation.Store.
func (t *Tables) AddConversationRun(ctx context.Context, convID, runID string, msgs []conversation.Message) error {
	err := t.write(ctx, func(tx DB) error {
		if t.lock != "" {
			if _, err := tx.Exec(ctx, t.lock, convID); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO conversation_runs (run_id, conversation_id, seq)
SELECT ?, ?, COALESCE(MAX(seq), 0) + 1 FROM conversation_runs WHERE conversation_id = ?`, runID, convID, convID); err != nil {
			return fmt.Errorf("add run %s: %w", runID, err)
		}
		var last int
		if err := tx.QueryRow(ctx, "SELECT COALESCE(MAX(seq), 0) FROM conversation_messages WHERE conversation_id = ?", convID).Scan(&last); err != nil {
			return err
		}
		for len(msgs) > 0 {
			chunk := msgs[:min(len(msgs), rowsPerInsert)]
			if err := insertMessages(ctx, tx, convID, runID, last, chunk); err != nil {
				return fmt.Errorf("messages: %w", err)
			}
			msgs, last = msgs[len(chunk):], last+len(chunk)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("conversation %s: %w", convID, err)
	}
	return nil
}

// insertMessages appends msgs, numbered from after+1, in one statement.
func insertMessages(ctx context.Context, tx DB, convID, runID string, after int, msgs []conversation.Message) error {
	args := make([]any, 0, 7*len(msgs))
	for i, m := range msgs {
		var calls *string
		if len(m.ToolCalls) > 0 {
			s := string(m.ToolCalls)
			calls = &s
		}
		args = append(args, convID, after+i+1, runID, m.Role, m.Content, calls, m.ToolCallID)
	}
	_, err := tx.Exec(ctx, `INSERT INTO conversation_messages
    (conversation_id, seq, run_id, role, content, tool_calls, tool_call_id) VALUES `+
		strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?), ", len(msgs)), ", "), args...)
	return err
}

// ConversationOf returns the conversation runID belongs to; see
// conversation.Store.
func (t *Tables) ConversationOf(ctx context.Context, runID string) (string, error) {
	var id string
	err := t.read.QueryRow(ctx, "SELECT conversation_id FROM conversation_runs WHERE run_id = ?", runID).Scan(&id)
	if errors.Is(err, ErrNoRows) {
		return "", fmt.Errorf("run %s: %w", runID, conversation.ErrNone)
	}
	if err != nil {
		return "", fmt.Errorf("conversation of run %s: %w", runID, err)
	}
	return id, nil
}

// ConversationMessages returns a conversation's messages in order; see
// conversation.Store.
func (t *Tables) ConversationMessages(ctx context.Context, convID string) ([]conversation.Message, error) {
	var out []conversation.Message
	rows, err := t.read.Query(ctx, `SELECT role, content, tool_calls, tool_call_id FROM conversation_messages
WHERE conversation_id = ? ORDER BY seq`, convID)
	err = each(rows, err, func(rows Rows) error {
		var m conversation.Message
		var calls *string
		err := rows.Scan(&m.Role, &m.Content, &calls, &m.ToolCallID)
		if calls != nil {
			m.ToolCalls = json.RawMessage(*calls)
		}
		out = append(out, m)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("conversation %s: %w", convID, err)
	}
	return out, nil
}

// ConversationIDs maps each of runIDs that belongs to a conversation to
// the conversation's ID; see conversation.Store.
func (t *Tables) ConversationIDs(ctx context.Context, runIDs []string) (map[string]string, error) {
	out := make(map[string]string, len(runIDs))
	for len(runIDs) > 0 {
		chunk := runIDs[:min(len(runIDs), rowsPerInsert)]
		runIDs = runIDs[len(chunk):]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		rows, err := t.read.Query(ctx, "SELECT run_id, conversation_id FROM conversation_runs WHERE run_id IN ("+
			strings.TrimSuffix(strings.Repeat("?, ", len(chunk)), ", ")+")", args...)
		err = each(rows, err, func(rows Rows) error {
			var run, conv string
			err := rows.Scan(&run, &conv)
			out[run] = conv
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("conversations of runs: %w", err)
		}
	}
	return out, nil
}
