package main

import (
	"context"
	"fmt"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/conversation"
	"github.com/agentry/agentry/trace/postgres"
	"github.com/agentry/agentry/trace/sqlite"
)

// traceDB is what both trace databases keep: runs and spans, approvals,
// conversations, file versions and evals.
type traceDB interface {
	trace.Store
	approval.Store
	conversation.Store
	trace.VersionStore
	trace.EvalStore
}

// openStore opens the trace store db names, for every command alike: a
// postgres:// or postgresql:// URL is a PostgreSQL database (trace/postgres),
// anything else a SQLite file (trace/sqlite), the default.
func openStore(db string) (traceDB, error) {
	if postgres.IsURL(db) {
		s, err := postgres.Open(db)
		if err != nil {
			return nil, err // not s: a nil *Store would be a non-nil traceDB
		}
		return s, nil
	}
	s, err := sqlite.Open(db)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// closeTrace closes rec, writing what it still holds; a trace that was not
// all written is an error that says how many records were lost, never
// lost silently.
func closeTrace(rec *trace.Recorder) error {
	if err := rec.Close(context.Background()); err != nil {
		return fmt.Errorf("trace incomplete (%d records lost): %w", rec.Dropped(), err)
	}
	return nil
}
