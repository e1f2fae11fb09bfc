// Package sqldb is what trace/sqlite and trace/postgres share: the
// migrations written once for both (migrations/, templates over Dialect,
// applied after each store's frozen history), and the queries that are the
// same on both (Tables: runs read and listed, rollups, approvals,
// conversations, file versions and evals), each written once with ? placeholders.
//
// It names no driver: each store adapts its own (database/sql, pgx) to DB,
// numbering placeholders and mapping its errors onto ErrNoRows and
// ErrUnique, and embeds a *Tables so the shared methods are its own.
// trace/doc.go says how to add a table to both databases here.
package sqldb
