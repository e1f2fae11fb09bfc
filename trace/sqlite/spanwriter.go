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
//
// The statements' arguments (attributes encoded as JSON, run keys looked
// up) are made on a second goroutine while SQLite runs the statements
// before them: that was a fifth of the writer's time, and the writer is
// what limits ingest. They are handed over in units of several statements,
// so the two goroutines wake each other rarely.
type spanWriter struct {
	conn      any         // the driver connection the statements belong to
	many, one driver.Stmt // spansPerStatement rows; one row
	units     [unitsInFlight]*argUnit
}

// unitStatements is the number of statements in one argUnit, and
// unitsInFlight how many units the encoder may fill ahead of the writer.
const (
	unitStatements = 8
	unitsInFlight  = 3
)

// argUnit holds the arguments of up to unitStatements statements: the k-th
// starts at args[k*stmtArgs] and has rows[k] rows (spansPerStatement for the
// many-row statement, 1 for the one-row one).
type argUnit struct {
	args  []driver.NamedValue
	rows  []int
	first int    // index in the batch of the unit's first span
	json  []byte // scratch for attributes
}

// stmtArgs is the parameter count of the many-row statement.
const stmtArgs = spansPerStatement * spanArgs

func newArgUnit() *argUnit {
	u := &argUnit{args: make([]driver.NamedValue, unitStatements*stmtArgs)}
	for i := range u.args {
		u.args[i].Ordinal = i%stmtArgs + 1
	}
	return u
}

// write upserts spans, the i-th with change number first+i, using keyOf for
// their run keys.
func (w *spanWriter) write(ctx context.Context, c *sql.Conn, keyOf func(runID string) int64, spans []trace.Span, first int64) error {
	return c.Raw(func(dc any) error {
		if err := w.prepare(ctx, dc); err != nil {
			return err
		}
		free, ready := make(chan *argUnit, unitsInFlight), make(chan *argUnit, unitsInFlight)
		for _, u := range w.units {
			free <- u
		}
		stop, encoded := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(encoded)
			defer close(ready)
			for i := 0; i < len(spans); {
				select {
				case u := <-free:
					i = w.encode(u, keyOf, spans, i, first)
					ready <- u
				case <-stop:
					return
				}
			}
		}()
		err := w.exec(ctx, ready, free, spans)
		close(stop)
		<-encoded
		if err != nil {
			for _, u := range w.units {
				for a := range u.args {
					u.args[a].Value = nil
				}
			}
		}
		return err
	})
}

// encode fills u with the statements for spans from index i on and returns
// the index after the last one it took. Whole statements of
// spansPerStatement rows go first; the last few spans go one per statement.
func (w *spanWriter) encode(u *argUnit, keyOf func(string) int64, spans []trace.Span, i int, first int64) int {
	u.rows, u.first = u.rows[:0], i
	for k := 0; k < unitStatements && i < len(spans); k++ {
		n := spansPerStatement
		if len(spans)-i < spansPerStatement {
			n = 1
		}
		args := u.args[k*stmtArgs:]
		for j := range n {
			x := spans[i+j]
			u.json = trace.AppendAttributes(u.json[:0], x.Attributes)
			setSpanArgs(args[j*spanArgs:], keyOf(x.RunID), x, string(u.json), first+int64(i+j))
		}
		u.rows = append(u.rows, n)
		i += n
	}
	return i
}

// exec runs the statements of each unit from ready and hands it back on
// free, emptied.
func (w *spanWriter) exec(ctx context.Context, ready <-chan *argUnit, free chan<- *argUnit, spans []trace.Span) error {
	for u := range ready {
		i := u.first
		for k, n := range u.rows {
			stmt := w.many
			if n == 1 {
				stmt = w.one
			}
			args := u.args[k*stmtArgs : k*stmtArgs+n*spanArgs]
			_, err := stmt.(driver.StmtExecContext).ExecContext(ctx, args)
			for a := range args {
				args[a].Value = nil // keep no span's text alive until the next batch
			}
			if err != nil {
				return fmt.Errorf("upsert spans %s..: %w", spans[i].ID, err)
			}
			i += n
		}
		free <- u
	}
	return nil
}

// prepare makes the statements on dc, once per connection. A connection
// database/sql replaced is gone with its statements, so they are only
// forgotten.
func (w *spanWriter) prepare(ctx context.Context, dc any) error {
	if w.units[0] == nil {
		for i := range w.units {
			w.units[i] = newArgUnit()
		}
	}
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
