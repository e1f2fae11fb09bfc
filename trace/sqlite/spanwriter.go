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
	conn any // the driver connection the statements belong to
	// The statements by kind (stmtKind), each prepared when first needed:
	// preparing the two of spansPerStatement rows costs about 0.2 ms each,
	// and a run written by one process often needs only one of them.
	stmts [stmtKinds]driver.Stmt
	units [unitsInFlight]*argUnit
}

// The kinds of span upsert: spansPerStatement rows of one run, of any
// runs; one row.
const (
	manyOneRun = iota
	manyRuns
	oneRow
	stmtKinds
)

var stmtSQL = [stmtKinds]string{
	manyOneRun: upsertSpansSQL(spansPerStatement, true),
	manyRuns:   upsertSpansSQL(spansPerStatement, false),
	oneRow:     upsertSpansSQL(1, true),
}

// unitStatements is the number of statements in one argUnit, and
// unitsInFlight how many units the encoder may fill ahead of the writer.
const (
	unitStatements = 8
	unitsInFlight  = 3
)

// argUnit holds the arguments of up to unitStatements statements, the k-th
// starting at args[k*stmtArgs]; upsertSpansSQL says their layout.
type argUnit struct {
	args  []driver.NamedValue
	stmts []unitStmt
	first int    // index in the batch of the unit's first span
	json  []byte // scratch for attributes
}

type unitStmt struct {
	kind, rows, args int
}

// stmtArgs is the largest parameter count of a statement: spansPerStatement
// rows of any runs.
const stmtArgs = 1 + spansPerStatement*(1+spanArgs)

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
		w.forget(dc)
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
	u.stmts, u.first = u.stmts[:0], i
	var keys [spansPerStatement]int64
	lastRun, lastKey := "", int64(0)
	for k := 0; k < unitStatements && i < len(spans); k++ {
		n := spansPerStatement
		if len(spans)-i < spansPerStatement {
			n = 1
		}
		oneRun := true
		for j := range n {
			if id := spans[i+j].RunID; id != lastRun {
				lastRun, lastKey = id, keyOf(id)
			}
			keys[j] = lastKey
			oneRun = oneRun && keys[j] == keys[0]
		}
		args, seq := u.args[k*stmtArgs:], first+int64(i)
		if oneRun {
			args[0].Value, args[1].Value = keys[0], seq
			for j := range n {
				w.row(u, args[2+j*spanArgs:], spans[i+j])
			}
			st := unitStmt{manyOneRun, n, 2 + n*spanArgs}
			if n == 1 {
				st.kind = oneRow
			}
			u.stmts = append(u.stmts, st)
		} else {
			args[0].Value = seq
			for j := range n {
				args[1+j*(1+spanArgs)].Value = keys[j]
				w.row(u, args[2+j*(1+spanArgs):], spans[i+j])
			}
			u.stmts = append(u.stmts, unitStmt{manyRuns, n, 1 + n*(1+spanArgs)})
		}
		i += n
	}
	return i
}

// row fills args with x's row, its attributes encoded in u's scratch.
func (w *spanWriter) row(u *argUnit, args []driver.NamedValue, x trace.Span) {
	u.json = trace.AppendAttributes(u.json[:0], x.Attributes)
	setSpanArgs(args, x, string(u.json))
}

// exec runs the statements of each unit from ready and hands it back on
// free, emptied.
func (w *spanWriter) exec(ctx context.Context, ready <-chan *argUnit, free chan<- *argUnit, spans []trace.Span) error {
	for u := range ready {
		i := u.first
		for k, st := range u.stmts {
			args := u.args[k*stmtArgs : k*stmtArgs+st.args]
			stmt, err := w.stmt(ctx, st.kind)
			if err == nil {
				_, err = stmt.(driver.StmtExecContext).ExecContext(ctx, args)
			}
			for a := range args {
				args[a].Value = nil // keep no span's text alive until the next batch
			}
			if err != nil {
				return fmt.Errorf("upsert spans %s..: %w", spans[i].ID, err)
			}
			i += st.rows
		}
		free <- u
	}
	return nil
}

// forget drops the statements when dc is not the connection they were
// prepared on: a connection database/sql replaced is gone with them. It
// also makes the argument units, once.
func (w *spanWriter) forget(dc any) {
	if w.units[0] == nil {
		for i := range w.units {
			w.units[i] = newArgUnit()
		}
	}
	if w.conn != dc {
		w.conn, w.stmts = dc, [stmtKinds]driver.Stmt{}
	}
}

// stmt returns the statement of kind on w.conn, preparing it if needed.
func (w *spanWriter) stmt(ctx context.Context, kind int) (driver.Stmt, error) {
	if st := w.stmts[kind]; st != nil {
		return st, nil
	}
	pc, ok := w.conn.(driver.ConnPrepareContext)
	if !ok {
		return nil, errors.New("sqlite driver cannot prepare with a context")
	}
	st, err := pc.PrepareContext(ctx, stmtSQL[kind])
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	w.stmts[kind] = st
	return st, nil
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
			for _, st := range w.stmts {
				if st != nil {
					st.Close()
				}
			}
		}
		w.conn, w.stmts = nil, [stmtKinds]driver.Stmt{}
		return nil
	})
}
