package sqlite

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentry/agentry/trace"
)

func TestMigrationsCarryDataForward(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	scripts, err := migrations()
	if err != nil || len(scripts) < 2 {
		t.Fatalf("migrations = %d, %v", len(scripts), err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	v1 := scripts[0] + fmt.Sprintf(`;
PRAGMA user_version = 1; PRAGMA application_id = %d;
INSERT INTO runs VALUES ('r1', 'coord', 'task', '', 'ok', 1000, 2000, 'done', '', 1, 2, 1, 'h', 1, '');
INSERT INTO spans (run_id, id, parent_id, kind, name, agent, depth, status, started_at, ended_at,
    input_tokens, output_tokens, error, attributes, seq)
VALUES ('r1', 's1', '', 'chat', 'chat demo', 'coord', 0, 'ok', 1000, 1500, 5, 6, '', '{"model":"demo"}', 1);`, applicationID)
	if _, err := db.Exec(v1); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err := Open(path)
	if err != nil {
		t.Fatalf("Open of a version 1 database: %v", err)
	}
	defer s.Close()
	spans, err := s.Spans(t.Context(), "r1")
	if err != nil || len(spans) != 1 || spans[0].Attributes["model"] != "demo" || spans[0].InputTokens != 5 {
		t.Fatalf("migrated spans = %+v, %v", spans, err)
	}
	if r, err := s.Run(t.Context(), "r1"); err != nil || r.Result != "done" {
		t.Fatalf("migrated run = %+v, %v", r, err)
	}
	var version int
	if err := s.read.QueryRow("PRAGMA user_version").Scan(&version); err != nil || version != len(scripts) {
		t.Errorf("user_version = %d, %v; want %d", version, err, len(scripts))
	}
	// Writing after the migration updates the migrated span, not a copy.
	sp := spans[0]
	sp.Status = trace.StatusError
	if err := s.Apply(t.Context(), nil, []trace.Span{sp}); err != nil {
		t.Fatal(err)
	}
	if again, _ := s.Spans(t.Context(), "r1"); len(again) != 1 || again[0].Status != trace.StatusError {
		t.Errorf("after update: %+v", again)
	}
}
