// Package sqlite is the trace.Store on SQLite (modernc.org/sqlite, pure Go),
// the one place the project touches database/sql.
//
// Why it is built the way it is:
//
//   - WAL, one write connection and a pool of read-only connections: the
//     recorder's batches never wait on the UI's queries and vice versa, and a
//     crash leaves every committed batch readable.
//   - Each run records its owning process (host, pid, process start time).
//     Open marks runs left running by a process that no longer exists as
//     interrupted, and leaves alone the runs of live processes, because
//     `agentry serve` and `agentry run` may share one database. A long-lived
//     process runs StartReaper to do the same every few seconds.
//   - Many processes may write one file at once. SQLite's busy timeout is
//     not fair, so under load one writer can wait past it: every write
//     transaction, and Open as a whole, is retried with jittered backoff on
//     busy or locked for up to Options.RetryFor (30s), then fails with
//     ErrBusy, which the Recorder turns into a reported loss, never a silent
//     one. The schema check reads its three facts in one statement, so a
//     database another process is creating is never taken for a foreign one.
//   - The schema is versioned with PRAGMA user_version and marked with
//     PRAGMA application_id; migrations are embedded and applied in one
//     transaction: this store's history (migrations/, versions 1-9, never
//     edited), then the steps it shares with trace/postgres
//     (trace/internal/sqldb/migrations).
//   - Runs read and listed, rollups, approvals and conversations are the
//     queries shared with trace/postgres (trace/internal/sqldb, embedded
//     in Store through sqlDB, the database/sql adapter in shared.go); the
//     rest of this package is what SQLite does its own way. A newer, foreign, corrupt or non-SQLite file is refused with
//     a clear error instead of being modified.
//   - Times are Unix nanoseconds; attributes are a JSON object in a TEXT column.
//     A global change counter (span_seq) stamps every span write, which is the
//     cursor of SpansSince.
//   - Ingest is what the schema is tuned for: spans refer to their run by a
//     small integer (run_keys) rather than the 32-character ID, there are only
//     two span indexes (unique (run, id) and (run, seq)), rows are upserted 32
//     per statement, and reads sort a run's spans in Go and decode their
//     attributes on a second goroutine. trace.NewSpanID hands out increasing
//     IDs, so new rows land at the end of the unique index's run range
//     instead of on random pages, and attributes are encoded without
//     reflection for scalar values. Binding a whole chunk of rows as one
//     JSON text for json_each was tried and was twice as slow: SQLite's JSON
//     parsing costs more than the per-value binds it saves. The span upserts
//     go to the driver's statements directly (spanWriter), inside the
//     transaction database/sql began: database/sql copied and converted each
//     of their 512 arguments per Exec, which cost 4-13% of ingest CPU and a
//     fifth of its allocated bytes. Their arguments are made on a second
//     goroutine while SQLite runs the statements before them, and a
//     statement binds its first change number and (when its rows share a
//     run) its run key once: binding takes SQLite's mutex per parameter.
//   - Checkpoints run on a connection and goroutine of their own
//     (checkpoint.go), with the writer's automatic checkpoint raised to a
//     backstop: done by the writer after each commit they were a fifth of
//     its time, two fsyncs each included. The Recorder hands over a backlog
//     in transactions of BatchSize spans so the checkpointer can keep up.
package sqlite
