package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/conversation"
)

// Store is a trace.Store in a PostgreSQL database. It is safe for concurrent
// use, also by many processes on many hosts sharing the database.
type Store struct {
	pool  *pgxpool.Pool
	owner *owner
	fold  string // the SQL that lower-cases a column for the text filter
	*tables
}

var (
	_ trace.Store        = (*Store)(nil)
	_ approval.Store     = (*Store)(nil)
	_ conversation.Store = (*Store)(nil)
)

// IsURL reports whether db names a PostgreSQL database (postgres:// or
// postgresql://) rather than a SQLite file.
func IsURL(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// Open connects to the database named by url (a postgres:// URL or a
// key=value string; PG* environment variables fill what it leaves out),
// brings the schema up to date and marks runs orphaned by ended processes as
// interrupted. Tables live in the first schema of the connection's
// search_path (add ?search_path=NAME to keep agentry's tables apart).
// Errors never show the URL's password.
func Open(url string) (*Store, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := open(ctx, url)
	if err != nil {
		return nil, redacted{fmt.Errorf("open trace db %s: %w", url, err)}
	}
	return s, nil
}

func open(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s := &Store{pool: pool}
	if err := s.init(ctx, cfg.ConnConfig); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) init(ctx context.Context, cc *pgx.ConnConfig) error {
	schema, create, err := s.schema(ctx, cc)
	if err != nil {
		return err
	}
	class := lockClass(schema)
	s.tables = s.newTables(class)
	if err := migrate(ctx, s.pool, class, create); err != nil {
		return err
	}
	if s.owner, err = takeOwnerKey(ctx, cc, class, ownerCheckEvery); err != nil {
		return fmt.Errorf("take owner lock: %w", err)
	}
	_, err = s.MarkInterrupted(ctx)
	return err
}

// schema returns the schema agentry's tables live in: the connection's
// current schema, or else the first one its search_path names, which
// migrate then creates. It also picks the text filter's lower-casing:
// lower() follows the database's ctype, which in a UTF-8 locale maps one
// character at a time as strings.ToLower does, but in the C locale folds
// ASCII only; there ICU's root collation does it, where the server has ICU
// (it differs from Go in context rules such as a final sigma).
func (s *Store) schema(ctx context.Context, cc *pgx.ConnConfig) (name, create string, err error) {
	var current *string
	var asciiOnly bool
	err = s.pool.QueryRow(ctx, `SELECT current_schema(),
    (SELECT datlocprovider = 'c' AND datctype IN ('C', 'POSIX') FROM pg_database WHERE datname = current_database())
    AND EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu')`).Scan(&current, &asciiOnly)
	if err != nil {
		return "", "", err
	}
	s.fold = "lower(%s)"
	if asciiOnly {
		s.fold = `lower(%s COLLATE "und-x-icu")`
	}
	if current != nil {
		return *current, "", nil
	}
	first, _, _ := strings.Cut(cc.RuntimeParams["search_path"], ",")
	first = strings.Trim(strings.TrimSpace(first), `"`)
	if first == "" || strings.HasPrefix(first, "$") {
		return "", "", errors.New("no schema to create tables in: the search_path names none that exists")
	}
	return first, first, nil
}

// lockClass is the first half of every advisory lock key this schema's
// stores take, so two agentry schemas in one database never share a key.
func lockClass(schema string) int32 {
	h := fnv.New32a()
	h.Write([]byte("agentry trace store " + schema))
	return int32(h.Sum32())
}

// Close releases the owner lock, then the connections.
func (s *Store) Close() error {
	err := s.owner.release()
	s.pool.Close()
	return err
}

// redacted is an error whose text has secrets removed: a connection error
// may quote the URL, password included. The cause stays reachable with
// errors.Is and errors.As.
type redacted struct{ err error }

func (r redacted) Error() string { return trace.Redact(r.err.Error()) }
func (r redacted) Unwrap() error { return r.err }

// Ping reports whether the database answers, for a server's readiness
// probe.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return redacted{fmt.Errorf("trace database: %w", err)}
	}
	return nil
}
