// Package postgres is the trace.Store on PostgreSQL (pgx v5), for agentry
// run as a service: several `serve` instances, CLI runs and workers on many
// hosts sharing one trace database. It is the one place the project
// imports pgx; `db: postgres://...` selects it (cmd/agentry's openStore).
//
// Why it is built the way it is:
//
//   - Same shape as trace/sqlite where it can be: times are Unix nanoseconds
//     in BIGINT (timestamptz has microseconds only), spans refer to their run
//     by a small key (run_keys), and both stores pass the one suite in
//     trace/tracetest, reaping included.
//   - The live timeline's cursor is a change counter per run, kept in
//     run_keys and bumped by every transaction that writes the run, under
//     that row's lock. A global sequence would not do: its numbers are
//     taken at insert time but become visible at commit, so with two
//     writers a poller could read number 11, then never see number 10
//     committed after. With the row lock, writers of one run take turns and
//     numbers become visible in order; writers of different runs never wait
//     on each other. Locks are taken in one order (counters by run ID, then
//     runs, then spans), so transactions never deadlock.
//   - A batch is a handful of statements whatever its size: runs and spans
//     are each upserted in one INSERT ... SELECT FROM unnest(arrays). A span
//     written twice in one batch (start and end) is folded to its last
//     state first, because one statement cannot upsert a row twice.
//   - Runs of writers that died are found through session advisory locks,
//     which work across hosts where trace/sqlite's pid check cannot. Each
//     open Store takes a key from the owner_keys sequence and holds the
//     lock (class, key) on a connection of its own; runs record the key.
//     The lock goes when the session does (process killed, host lost), and
//     the reaper's pg_try_advisory_lock on it then succeeds. Close unlocks
//     before closing: a closed connection's session can outlive it briefly.
//     A session cut under a live process (database restart) is noticed by a
//     ping every 2s, and the same key is locked again (owner.go).
//     The class is a hash of the schema name, so two agentry schemas in one
//     database never share keys.
//   - Migrations run in one transaction under an advisory transaction lock,
//     so many processes opening a new database at once queue instead of
//     failing. The version lives in agentry_schema; a schema with a runs
//     table but no agentry_schema is refused as foreign. Tables live in the
//     connection's current schema: ?search_path=NAME in the URL picks (and
//     creates) another.
//   - PostgreSQL text holds neither NUL nor invalid UTF-8, which SQLite
//     keeps: such characters are stored as U+FFFD instead of failing the
//     batch. Attributes and events are JSON (kept as written, read without
//     re-encoding; JSONB would refuse a tool output holding \u0000).
//   - The text filter lower-cases with lower(), which in a UTF-8 ctype maps
//     characters as strings.ToLower does; a database in the C locale folds
//     ASCII only, so there ICU's root collation is used where the server
//     has it. Both cost the same (200 ms each to scan 50,000 runs on a busy
//     machine).
//   - The run page's reads (Skeleton, Span, FindSpans; read.go) pass the
//     same suite as trace/sqlite's. Find's
//     words use PostgreSQL full-text search, not pg_trgm: the contract is
//     whole words, case-folded, which a tsvector gives, where trigrams
//     would match inside words and need an extension. The GIN index is on
//     an expression (span_words, migration 002), not a stored column, so
//     the text is not kept twice; every write keeps it current, where
//     trace/sqlite fills its FTS5 index on a run's first search: a span
//     with words costs ingest up to about half its speed (docs/postgres.md),
//     but only agent invocations and workflow steps have a task or a
//     result, and in exchange no find ever waits on a catch-up. The
//     'simple' configuration neither stems nor drops stop words, so any
//     language's words match as written; ASCII punctuation is made a
//     space first, so "example.com/q4-report" is four words, as
//     trace.SpanQuery.Words and SQLite's tokenizer split it, not a host
//     and a path. The query is plainto_tsquery of SpanQuery.Words, so
//     nothing typed is syntax (websearch_to_tsquery would read "-" and
//     "or"). Known differences from SQLite: only the first 100,000
//     characters of a span's task and result are indexed (a tsvector
//     holds 1 MB, and a write must not fail on a long tool output);
//     accents are kept ("café" does not find "cafe"; FTS5 folds them);
//     and in a C-locale database non-ASCII punctuation is part of a word.
//     In a C-locale database the text is lower-cased with ICU first, as
//     the runs' filter is, if the server has ICU when migration 002 runs.
//   - Runs read and listed, rollups, approvals and conversations are the
//     queries shared with trace/sqlite (trace/internal/sqldb, embedded in
//     Store through pgDB, the pgx adapter in shared.go, which numbers the
//     placeholders and makes text storable). An answer to an approval reads
//     its row FOR UPDATE, so of two racing answers the second waits and
//     reads the first's; the reaper denies an interrupted run's pending
//     approvals. A conversation's follow-ups take the next numbers under a
//     transaction advisory lock on the conversation (single 64-bit key
//     space, apart from the owner locks' pairs), since two serve instances
//     may append at once where SQLite's single writer serializes them.
//   - Migrations: this store's history (migrations/, versions 1-6, never
//     edited), then the steps shared with trace/sqlite
//     (trace/internal/sqldb/migrations).
//   - Errors of Open never show the URL's password (trace.Redact).
package postgres
