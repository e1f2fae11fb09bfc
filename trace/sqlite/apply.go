package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/internal/sqldb"
	"github.com/agentry/agentry/trace/internal/storekit"
)

const upsertRunSQL = `
INSERT INTO runs (id, agent, task, model, status, started_at, ended_at, result, error,
    input_tokens, output_tokens, agents, owner_host, owner_pid, owner_start, cost_usd)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)` + sqldb.UpsertRun

// upsertSpansSQL writes n spans in one statement: per-statement overhead
// in database/sql and the driver is a large share of the cost of a row.
// The rows' change numbers follow from the first one, a parameter of the
// statement; with oneRun so does their run key. Every parameter costs a
// call into SQLite that takes its mutex, and binding was the largest part
// of the writer's time after stepping. The numbered parameters come first
// in the text, so the plain ones after them are numbered 3 on (2 on
// without oneRun): the layout spanWriter fills.
func upsertSpansSQL(n int, oneRun bool) string {
	var b strings.Builder
	b.WriteString(upsertSpanHead)
	for k := range n {
		if k > 0 {
			b.WriteString(", ")
		}
		if oneRun {
			fmt.Fprintf(&b, "(?2 + %d, ?1", k)
		} else {
			fmt.Fprintf(&b, "(?1 + %d, ?", k)
		}
		b.WriteString(strings.Repeat(", ?", spanArgs) + ")")
	}
	b.WriteString(sqldb.UpsertSpan)
	return b.String()
}

// spansPerStatement is the row count of the multi-row span upsert.
const spansPerStatement = 32

const upsertSpanHead = `
INSERT INTO spans (seq, run_key, id, parent_id, kind, name, agent, depth, status, started_at,
    ended_at, input_tokens, output_tokens, error, attributes, events)
VALUES `

// bumpSeqSQL reserves a block of change numbers for one transaction's spans.
const bumpSeqSQL = `UPDATE counters SET value = value + ? WHERE name = 'span_seq' RETURNING value`

// statements are the writer's hot statements, prepared once. The span
// upserts are prepared on the driver instead (spanWriter).
type statements struct {
	upsertRun, bumpSeq, runKey, runKeys *sql.Stmt
}

func (st *statements) prepare(ctx context.Context, db *sql.DB) error {
	var err error
	for _, p := range []struct {
		dst   **sql.Stmt
		query string
	}{
		{&st.upsertRun, upsertRunSQL}, {&st.bumpSeq, bumpSeqSQL}, {&st.runKey, runKeySQL},
		{&st.runKeys, runKeysSQL},
	} {
		if *p.dst, err = db.PrepareContext(ctx, p.query); err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
	}
	return nil
}

func (st *statements) close() {
	for _, s := range []*sql.Stmt{st.upsertRun, st.bumpSeq, st.runKey, st.runKeys} {
		if s != nil {
			s.Close()
		}
	}
}

// Apply upserts runs and spans in one transaction; see trace.Store.
func (s *Store) Apply(ctx context.Context, runs []trace.Run, spans []trace.Span) error {
	if err := storekit.CheckApply(runs, spans); err != nil {
		return err
	}
	if len(runs)+len(spans) == 0 {
		return nil
	}
	var keys runKeys
	err := s.inWriteTx(ctx, func(tx writeTx) error {
		keys = runKeys{} // a retried transaction starts over
		return s.applyTx(ctx, tx, keys, runs, spans)
	})
	if err == nil {
		s.keys.learn(keys)
		s.ckpt.wrote(len(spans))
	}
	return err
}

// writeTx is a write transaction with the connection it runs on, through
// which spanWriter reaches the driver.
type writeTx struct {
	*sql.Tx
	conn *sql.Conn
}

// inTx runs fn in a write transaction and commits it if fn succeeds. While
// other writers keep the database busy it tries again with backoff, for at
// most Options.RetryFor, so fn must start from scratch each time it runs.
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	return s.inWriteTx(ctx, func(tx writeTx) error { return fn(tx.Tx) })
}

// inWriteTx is inTx for writes that also need the connection (applyTx).
func (s *Store) inWriteTx(ctx context.Context, fn func(writeTx) error) error {
	return retryBusy(ctx, s.opts, func() error { return s.tryTx(ctx, fn) })
}

func (s *Store) tryTx(ctx context.Context, fn func(writeTx) error) error {
	conn, err := s.write.Conn(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(writeTx{tx, conn}); err != nil {
		return errors.Join(err, tx.Rollback())
	}
	if err := tx.Commit(); err != nil {
		// A COMMIT that fails busy leaves SQLite's transaction open on the
		// one write connection; end it so the retry can begin anew.
		conn.ExecContext(ctx, "ROLLBACK")
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// applyTx writes runs and spans in tx; run keys it had to look up or create
// are added to keys, for the caller to learn once tx commits.
func (s *Store) applyTx(ctx context.Context, tx writeTx, keys runKeys, runs []trace.Run, spans []trace.Span) error {
	up := tx.StmtContext(ctx, s.stmts.upsertRun)
	for _, r := range runs {
		pid := s.owner.pid
		if r.Durable { // owned by no process: owner.alive holds pid 0 alive
			pid = 0
		}
		_, err := up.ExecContext(ctx, r.ID, r.Agent, r.Task, r.Model, string(r.Status),
			sqldb.ToNS(r.StartedAt), endNS(r.EndedAt), r.Result, r.Error, r.InputTokens, r.OutputTokens,
			r.Agents, s.owner.host, pid, s.owner.start, r.CostUSD)
		if err != nil {
			return fmt.Errorf("upsert run %s: %w", r.ID, err)
		}
	}
	if len(spans) == 0 {
		return nil
	}
	if err := s.spanRunKeys(ctx, tx.Tx, keys, spans); err != nil {
		return err
	}
	var last int64
	if err := tx.StmtContext(ctx, s.stmts.bumpSeq).QueryRowContext(ctx, len(spans)).Scan(&last); err != nil {
		return fmt.Errorf("reserve span seq: %w", err)
	}
	first := last - int64(len(spans)) + 1
	return s.spans.write(ctx, tx.conn, func(id string) int64 { return keys.of(&s.keys, id) }, spans, first)
}

// spanArgs is the number of parameters of one span row besides its change
// number and run key.
const spanArgs = 14

// setSpanArgs fills args (spanArgs long) with one span row, its attributes
// already encoded. The values are the driver's own types (int64, string,
// nil): nothing converts them.
func setSpanArgs(args []driver.NamedValue, x trace.Span, attrs string) {
	for i, v := range [spanArgs]any{x.ID, x.ParentID, string(x.Kind), x.Name, x.Agent,
		int64(x.Depth), string(x.Status), sqldb.ToNS(x.StartedAt), endNS(x.EndedAt), x.InputTokens,
		x.OutputTokens, x.Error, attrs, encodeEvents(x.Events)} {
		args[i].Value = v
	}
}

// encodeEvents returns the events column of a span: NULL when it has no
// events, else storekit.EncodeEvents's JSON array as TEXT.
func encodeEvents(events []trace.Event) any {
	if b := storekit.EncodeEvents(events); b != nil {
		return string(b)
	}
	return nil
}

// endNS stores an end time, NULL while there is none.
func endNS(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}

// fromNS reads what toNS and endNS store.
func fromNS(n sql.NullInt64) time.Time {
	if !n.Valid || n.Int64 == 0 {
		return time.Time{}
	}
	return time.Unix(0, n.Int64).UTC()
}
