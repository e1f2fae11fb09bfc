package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"runtime"

	"modernc.org/sqlite"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/conversation"
)

// Store is a trace.Store in one SQLite file. It is safe for concurrent use,
// also by several processes on the same file.
type Store struct {
	write *sql.DB // one connection: SQLite has one writer at a time anyway
	read  *sql.DB // read-only pool for queries
	owner owner   // this process, stamped on the runs it writes
	opts  Options
	stmts statements
	spans spanWriter // the span upserts, on the write connection
	keys  keyCache   // run ID → run_keys.pk, immutable once committed
	ckpt  *checkpointer
	file  fileIdentity // the file opened, for Ping
	*tables
}

var (
	_ trace.Store        = (*Store)(nil)
	_ approval.Store     = (*Store)(nil)
	_ conversation.Store = (*Store)(nil)
)

// Open opens or creates the trace database at path, brings its schema up to
// date and marks runs orphaned by dead processes as interrupted. It returns
// an error wrapping ErrNotDatabase, ErrForeign or ErrNewerSchema for a file it
// must not use, or ErrBusy when other writers kept it locked too long.
func Open(path string) (*Store, error) { return OpenWith(path, Options{}) }

// OpenWith is Open with explicit Options. Opening is retried as a whole
// while the file is busy: several processes that open a new database at
// once queue on its creation instead of failing.
func OpenWith(path string, o Options) (*Store, error) {
	ctx := context.Background()
	o = o.withDefaults()
	var s *Store
	err := retryBusy(ctx, o, func() (err error) {
		s, err = open(ctx, path, o)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("open trace db %s: %w", path, err)
	}
	return s, nil
}

func open(ctx context.Context, path string, o Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("no database path given")
	}
	if err := probe(ctx, path, o); err != nil {
		return nil, classify(err)
	}
	write, err := sql.Open("sqlite", dsn(path, false, o))
	if err != nil {
		return nil, err
	}
	write.SetMaxOpenConns(1)
	write.SetConnMaxIdleTime(0)
	s := &Store{write: write, owner: self(), opts: o, file: fileIdentity{path: path}}
	if err := s.init(ctx, path); err != nil {
		write.Close()
		if s.read != nil {
			s.read.Close()
		}
		if s.ckpt != nil {
			s.ckpt.close()
		}
		return nil, classify(err)
	}
	return s, nil
}

func (s *Store) init(ctx context.Context, path string) error {
	if err := s.write.PingContext(ctx); err != nil {
		return err
	}
	if err := migrate(ctx, s.write); err != nil {
		return err
	}
	if err := s.file.remember(); err != nil {
		return err
	}
	read, err := sql.Open("sqlite", dsn(path, true, s.opts))
	if err != nil {
		return err
	}
	s.read = read
	read.SetMaxOpenConns(max(2, runtime.GOMAXPROCS(0)))
	s.tables = s.newTables()
	ckpt, err := sql.Open("sqlite", dsn(path, false, s.opts))
	if err != nil {
		return err
	}
	ckpt.SetMaxOpenConns(1)
	s.ckpt = startCheckpointer(ckpt)
	if err := s.stmts.prepare(ctx, s.write); err != nil {
		return err
	}
	_, err = s.MarkInterrupted(ctx)
	return err
}

// dsn builds the connection string: WAL; a busy timeout for other processes'
// writers (and retryBusy beyond it); synchronous=NORMAL (a process crash loses nothing committed, a
// power loss at most the last transactions); a 32 MiB page cache; statement
// journals in memory (multi-row upserts open one, and on disk it cost a
// quarter of ingest time in pwrite calls); automatic checkpoints only as a
// backstop (checkpoint.go); and immediate transactions so writers queue
// instead of failing with BUSY.
func dsn(path string, readOnly bool, o Options) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", o.BusyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "cache_size(-32768)")
	q.Add("_pragma", "temp_store(MEMORY)")
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Add("_pragma", fmt.Sprintf("wal_autocheckpoint(%d)", walBackstopPages))
		q.Set("_txlock", "immediate")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// classify maps SQLite's "not a database" and "corrupt" codes to
// ErrNotDatabase, keeping the driver's message.
func classify(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case 26, 11: // SQLITE_NOTADB, SQLITE_CORRUPT
			return fmt.Errorf("%w: %v", ErrNotDatabase, err)
		}
	}
	return err
}

// Close closes the database. The caller flushes any Recorder first.
func (s *Store) Close() error {
	s.stmts.close()
	s.spans.close(s.write)
	return errors.Join(s.ckpt.close(), s.read.Close(), s.write.Close())
}
