package storekit

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/trace"
)

// PageLimit applies trace.DefaultLimit and trace.MaxLimit to a requested
// page size (RunFilter.Limit, approval.Filter.Limit).
func PageLimit(n int) int {
	if n <= 0 {
		return trace.DefaultLimit
	}
	return min(n, trace.MaxLimit)
}

// Cursor returns the trace.RunFilter.Cursor that continues a listing after r.
func Cursor(r trace.Run) string {
	return strconv.FormatInt(r.StartedAt.UnixNano(), 10) + "_" + r.ID
}

// ParseCursor splits a cursor made by Cursor into the start time and ID of
// the last run listed; a malformed cursor wraps trace.ErrInvalid.
func ParseCursor(c string) (time.Time, string, error) {
	ns, id, ok := strings.Cut(c, "_")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil || id == "" {
		return time.Time{}, "", fmt.Errorf("%w: bad cursor %q", trace.ErrInvalid, c)
	}
	return time.Unix(0, n).UTC(), id, nil
}

// CheckApply returns, wrapping trace.ErrInvalid, why Store.Apply must
// reject runs and spans: a record without the IDs it is keyed by.
func CheckApply(runs []trace.Run, spans []trace.Span) error {
	for _, r := range runs {
		if r.ID == "" {
			return fmt.Errorf("%w: run has no id", trace.ErrInvalid)
		}
	}
	for _, sp := range spans {
		if sp.ID == "" || sp.RunID == "" {
			return fmt.Errorf("%w: span %q of run %q lacks an id", trace.ErrInvalid, sp.ID, sp.RunID)
		}
	}
	return nil
}
