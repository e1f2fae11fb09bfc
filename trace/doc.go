// Package trace is the record of what agents did: runs and their spans, shaped
// after the OpenTelemetry GenAI conventions (invoke_agent, chat, execute_tool).
//
// It holds only types and contracts, no infrastructure, so the runtime, the CLI
// and the web UI agree on one shape without importing a database:
//
//   - Run and Span are the data; their JSON form (times RFC 3339 with
//     microseconds, ended_at null while running) is the one every output uses.
//   - Sink is what the runtime writes to as things happen; Recorder is the Sink
//     that batches those calls into a Store without blocking the agents.
//   - Store is the queryable, portable record, one contract with no optional
//     parts: writes, the reads the run page makes on big runs (Skeleton,
//     Span, FindSpans), and the upkeep of a long-lived process
//     (MarkInterrupted, which StartReaper calls in a loop, and Ping).
//     trace/sqlite (the default) and trace/postgres are the real ones,
//     trace/memory the in-process one for tests; trace/tracetest holds the
//     conformance suite every Store passes.
//   - Beside the record, and in packages of their own: trace/semconv is the
//     vocabulary of spans (attribute keys, event names), trace/approval the
//     calls that wait for a person, trace/conversation the runs a
//     conversation is made of. The stores keep all three.
//   - Nothing is lost silently: a Recorder whose store could not take records
//     counts them and says so from Close (ErrDropped, ErrLost), and the
//     caller reports it (agentry run exits non-zero).
//   - Secrets never reach a message: Redact removes URL passwords, tokens in
//     query strings, Authorization headers and API keys. Recorder and Tee
//     apply it to run and span errors; the CLI applies it to the errors it
//     prints and, through RedactAttr, to its logs. It lives here, not in
//     cmd, so every edge uses one definition of what a secret looks like.
//   - CheckID is the shape of an ID a document may bring in on import.
//
// # Packages
//
//	trace                 the record (Run, Span, Document), Sink, Recorder, Store
//	trace/semconv         attribute keys and event names of spans
//	trace/approval        approval.Store, the seal, Memory
//	trace/conversation    conversation.Store, Memory
//	trace/memory          every contract above, in process memory (tests)
//	trace/sqlite          every contract above on SQLite (the default)
//	trace/postgres        every contract above on PostgreSQL
//	trace/tracetest       the suites each store passes
//	trace/otlp            the OpenTelemetry exporter; trace/prometheus the metrics
//	trace/internal/...    storekit (what every store shares), sqldb (what
//	                      the two SQL stores share) and writer (the
//	                      background loop of the Recorder and trace/otlp)
//
// The domain packages (trace, semconv, approval, conversation) import no
// infrastructure and no adapter; architecture_test.go keeps it so.
//
// # Adding a table to both databases
//
// The SQLite and PostgreSQL stores share their schema changes and the
// queries that are the same on both, in trace/internal/sqldb; each keeps
// to itself only what it does its own way for speed (writing and reading
// spans, finding words, reaping). The versions and evals tables came with
// each store's history (SQLite 009, PostgreSQL 006, shipped before the
// shared list) and keep their queries in each store. A new table with its
// queries is added to trace/internal/sqldb, once:
//
//  1. The migration: trace/internal/sqldb/migrations/NNN_name.sql, the next
//     number, a text/template with the column types of sqldb.Dialect
//     ({{.ID}}, {{.BigInt}}, {{.Bool}}, ...; migrations/README.md lists
//     them), CREATE ... IF NOT EXISTS. Both stores apply it after their own
//     frozen history (SQLite versions 1-9, PostgreSQL 1-6), in the same
//     transaction as any other step.
//  2. The queries: a file of methods on *sqldb.Tables, each query written
//     once with ? placeholders (PostgreSQL's adapter numbers them), reading
//     through t.read and writing in t.write, which is a write transaction
//     each store runs its own way (SQLite retries it while other writers
//     keep the file busy). Use ToNS/FromNS for times, ErrNoRows and
//     ErrUnique for the driver's errors, t.d.ForUpdate on a read whose rows
//     the transaction then writes.
//  3. The contract: an interface beside its types, in the domain package
//     the feature belongs to (as approval.Store is), with an in-memory
//     implementation that trace/memory embeds, and a suite in
//     trace/tracetest that trace/memory, trace/sqlite and trace/postgres
//     each run (RunApprovalTests is the model).
//
// Both stores embed *sqldb.Tables, so its new methods are theirs with no
// edit to either store.
package trace
