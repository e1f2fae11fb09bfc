package postgres

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/postgres/pgtest"
	"github.com/agentry/agentry/trace/semconv"
)

// Open refuses tables it must not touch: written by a newer agentry, or a
// runs table that is not agentry's, and says which database.
func TestOpenRefusesNewerAndForeignSchemas(t *testing.T) {
	cases := []struct {
		name   string
		change string
		want   error
	}{
		{"a newer agentry's schema", "UPDATE agentry_schema SET version = version + 1", ErrNewerSchema},
		{"a runs table without agentry's version table", "DROP TABLE agentry_schema", ErrForeign},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := pgtest.URL(t)
			s, err := Open(url)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.pool.Exec(t.Context(), c.change); err != nil {
				t.Fatal(err)
			}
			s.Close()
			_, err = Open(url)
			if !errors.Is(err, c.want) {
				t.Fatalf("Open = %v, want %v", err, c.want)
			}
			if !strings.Contains(err.Error(), "open trace db postgres://") {
				t.Errorf("error %q does not name the database", err)
			}
		})
	}
}

// Migration 002 indexes the words of spans written before it: a database
// at version 1 with spans in it finds them once opened by this build. The
// migrations after 002 are written to run again harmlessly (IF NOT EXISTS),
// which is what lets this test wind the version back.
func TestFindIndexCoversSpansWrittenBeforeIt(t *testing.T) {
	url := pgtest.URL(t)
	s, err := Open(url)
	if err != nil {
		t.Fatal(err)
	}
	sp := trace.Span{ID: "old", RunID: "r", Kind: trace.KindInvokeAgent, Name: "invoke_agent a", Agent: "a",
		Status: trace.StatusOK, StartedAt: time.Unix(1, 0), Attributes: map[string]any{semconv.AttrTask: "Written at version one"}}
	if err := s.Apply(t.Context(), nil, []trace.Span{sp}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(t.Context(), "DROP INDEX spans_words; DROP FUNCTION span_words; UPDATE agentry_schema SET version = 1"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(url); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ids, err := s.FindSpans(t.Context(), "r", trace.SpanQuery{Text: "version ONE"})
	if err != nil || len(ids) != 1 || ids[0] != "old" {
		t.Errorf("FindSpans after migrating = %v, %v; want [old]", ids, err)
	}
}
