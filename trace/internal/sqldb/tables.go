package sqldb

// Tables are the queries both databases run alike, written once: runs
// read and listed, rollups, approvals, conversations, versions and evals. trace/sqlite and
// trace/postgres embed a *Tables, so its methods are theirs: a table added
// here with its queries (and its migration in migrations/) is in both
// stores with no second edit. What each database does its own way for
// speed (writing and reading spans, finding words, reaping) stays in the
// store.
type Tables struct {
	d        Dialect
	read     DB
	write    WriteFunc
	durable  string
	contains func(column string) string
	lock     string
}

// Config is how a store plugs its database into Tables.
type Config struct {
	Dialect Dialect
	// Read runs queries outside a transaction (trace/sqlite's read-only
	// pool); Write runs a write transaction.
	Read  DB
	Write WriteFunc
	// Durable is the SQL expression, over a runs row, that is true for a
	// durable run (trace.Run.Durable): its owner column is 0.
	Durable string
	// Contains returns the SQL condition that column contains the text of
	// one ? parameter, which the caller has lower-cased, folding the
	// column's case as strings.ToLower does.
	Contains func(column string) string
	// Lock, when set, is a statement with one ? parameter (a key: a
	// conversation's ID, "version KIND NAME") that AddConversationRun and
	// AddVersion run first in their transaction, so two processes that
	// write one conversation or record one file's version take turns
	// (PostgreSQL's advisory lock). "" where the write transaction already
	// serializes writers (SQLite).
	Lock string
}

// New returns the shared queries over a store's database.
func New(c Config) *Tables {
	return &Tables{d: c.Dialect, read: c.Read, write: c.Write, durable: c.Durable, contains: c.Contains, lock: c.Lock}
}
