package main

import (
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/postgres"
	"github.com/agentry/agentry/trace/sqlite"
)

// openStore opens the trace store db names, for every command alike: a
// postgres:// or postgresql:// URL is a PostgreSQL database (trace/postgres),
// anything else a SQLite file (trace/sqlite), the default. Both are a
// trace.Reaper, for serve's reaping loop.
func openStore(db string) (trace.Store, error) {
	if postgres.IsURL(db) {
		s, err := postgres.Open(db)
		if err != nil {
			return nil, err // not s: a nil *Store would be a non-nil trace.Store
		}
		return s, nil
	}
	s, err := sqlite.Open(db)
	if err != nil {
		return nil, err
	}
	return s, nil
}
