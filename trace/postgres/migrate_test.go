package postgres

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentry/agentry/trace/postgres/pgtest"
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
