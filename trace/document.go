package trace

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Validate reports, wrapping ErrInvalid, why a document cannot be imported:
// a missing run ID, a span without ID, a duplicate span ID, a span that names
// another run, or a parent that is not among the spans.
func (d Document) Validate() error {
	if d.Run.ID == "" {
		return fmt.Errorf("%w: run has no id", ErrInvalid)
	}
	ids := make(map[string]bool, len(d.Spans))
	for i, sp := range d.Spans {
		switch {
		case sp.ID == "":
			return fmt.Errorf("%w: span %d has no id", ErrInvalid, i)
		case ids[sp.ID]:
			return fmt.Errorf("%w: span id %q appears twice", ErrInvalid, sp.ID)
		case sp.RunID != "" && sp.RunID != d.Run.ID:
			return fmt.Errorf("%w: span %q belongs to run %q, not %q", ErrInvalid, sp.ID, sp.RunID, d.Run.ID)
		}
		ids[sp.ID] = true
	}
	for _, sp := range d.Spans {
		if sp.ParentID != "" && !ids[sp.ParentID] {
			return fmt.Errorf("%w: span %q has unknown parent %q", ErrInvalid, sp.ID, sp.ParentID)
		}
	}
	return nil
}

// WithRunID returns a copy of d stored under runID: every span gets that run
// ID, and when runID differs from the document's own, a fresh span ID, with
// parent links remapped to match. d is not modified.
func (d Document) WithRunID(runID string) Document {
	out := Document{Run: d.Run, Spans: make([]Span, len(d.Spans))}
	out.Run.ID = runID
	remap := runID != d.Run.ID
	newID := make(map[string]string, len(d.Spans))
	if remap {
		for _, sp := range d.Spans {
			newID[sp.ID] = NewSpanID()
		}
	}
	for i, sp := range d.Spans {
		sp.RunID = runID
		if remap {
			sp.ID = newID[sp.ID]
			if sp.ParentID != "" {
				sp.ParentID = newID[sp.ParentID]
			}
		}
		out.Spans[i] = sp
	}
	return out
}

// Cursor returns the RunFilter.Cursor that continues a listing after r.
func Cursor(r Run) string {
	return strconv.FormatInt(r.StartedAt.UnixNano(), 10) + "_" + r.ID
}

// ParseCursor splits a cursor made by Cursor into the start time and ID of the
// last run listed; a malformed cursor wraps ErrInvalid.
func ParseCursor(c string) (time.Time, string, error) {
	ns, id, ok := strings.Cut(c, "_")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil || id == "" {
		return time.Time{}, "", fmt.Errorf("%w: bad cursor %q", ErrInvalid, c)
	}
	return time.Unix(0, n).UTC(), id, nil
}

// Before reports whether run a lists before run b: newer first, then by
// descending ID, the order of Store.Runs.
func Before(a, b Run) bool {
	if !a.StartedAt.Equal(b.StartedAt) {
		return a.StartedAt.After(b.StartedAt)
	}
	return a.ID > b.ID
}

// CheckApply returns, wrapping ErrInvalid, why Store.Apply must reject runs
// and spans: a record without the IDs it is keyed by.
func CheckApply(runs []Run, spans []Span) error {
	for _, r := range runs {
		if r.ID == "" {
			return fmt.Errorf("%w: run has no id", ErrInvalid)
		}
	}
	for _, sp := range spans {
		if sp.ID == "" || sp.RunID == "" {
			return fmt.Errorf("%w: span %q of run %q lacks an id", ErrInvalid, sp.ID, sp.RunID)
		}
	}
	return nil
}
