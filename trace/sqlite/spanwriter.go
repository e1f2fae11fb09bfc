package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/agentry/agentry/trace"
)

// spanWriter runs the span upserts on the driver's statements directly,
// inside the transaction database/sql began on the same connection.
// database/sql converts and copies every argument of every Exec into a
// fresh slice: for 512 parameters per statement that was a fifth of the
// ingest's allocations and a tenth of its CPU. Its fields are used only
// with the one write connection held (sql.Conn.Raw), which serialises them.
type spanWriter struct {
	conn      any         // the driver connection the statements belong to
	many, one driver.Stmt // spansPerStatement rows; one row
	args      []driver.NamedValue
}

// write upserts spans, the i-th with change number first+i, using keyOf for
// their run keys.
func (w *spanWriter) write(ctx context.Context, c *sql.Conn, keyOf func(runID string) int64, spans []trace.Span, first int64) error {
	return c.Raw(func(dc any) error {
		if err := w.prepare(ctx, dc); err != nil {
			return err
		}
		for i := 0; i < len(spans); {
			n, stmt := spansPerStatement, w.many
			if len(spans)-i < spansPerStatement {
				n, stmt = 1, w.one
			}
			args := w.args[:n*spanArgs]
			for j := range n {
				x := spans[i+j]
				setSpanArgs(args[j*spanArgs:], keyOf(x.RunID), x, first+int64(i+j))
			}
			_, err := stmt.(driver.StmtExecContext).ExecContext(ctx, args)
			for k := range args {
				args[k].Value = nil // keep no span's text alive until the next batch
			}
			if err != nil {
				return fmt.Errorf("upsert spans %s..: %w", spans[i].ID, err)
			}
			i += n
		}
		return nil
	})
}

// prepare makes the statements on dc, once per connection. A connection
// database/sql replaced is gone with its statements, so they are only
// forgotten.
func (w *spanWriter) prepare(ctx context.Context, dc any) error {
	if w.conn == dc {
		return nil
	}
	pc, ok := dc.(driver.ConnPrepareContext)
	if !ok {
		return errors.New("sqlite driver cannot prepare with a context")
	}
	w.conn, w.many, w.one = nil, nil, nil
	many, err := pc.PrepareContext(ctx, upsertSpansSQL(spansPerStatement))
	if err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	one, err := pc.PrepareContext(ctx, upsertSpansSQL(1))
	if err != nil {
		many.Close()
		return fmt.Errorf("prepare: %w", err)
	}
	w.conn, w.many, w.one = dc, many, one
	if w.args == nil {
		w.args = make([]driver.NamedValue, spansPerStatement*spanArgs)
		for i := range w.args {
			w.args[i].Ordinal = i + 1
		}
	}
	return nil
}

// close finalizes the statements while their connection is still open.
func (w *spanWriter) close(db *sql.DB) {
	c, err := db.Conn(context.Background())
	if err != nil {
		return
	}
	defer c.Close()
	c.Raw(func(dc any) error {
		if w.conn == dc {
			w.many.Close()
			w.one.Close()
		}
		w.conn, w.many, w.one = nil, nil, nil
		return nil
	})
}
