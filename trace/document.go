package trace

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Validate reports, wrapping ErrInvalid, why a document cannot be imported:
// a run without ID or with an unknown status; a run or span ID that CheckID
// refuses; a span without ID, of an unknown kind or with an unknown status; a duplicate span ID; a span that
// names another run; a parent that is not among the spans; or parent links
// that loop, a span being its own parent included.
func (d Document) Validate() error {
	if d.Run.ID == "" {
		return fmt.Errorf("%w: run has no id", ErrInvalid)
	}
	if err := CheckID(d.Run.ID); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if !d.Run.Status.IsKnown() {
		return fmt.Errorf("%w: run status %q is not one of %s", ErrInvalid, d.Run.Status, statusList())
	}
	parent := make(map[string]string, len(d.Spans))
	for i, sp := range d.Spans {
		_, dup := parent[sp.ID]
		switch {
		case sp.ID == "":
			return fmt.Errorf("%w: span %d has no id", ErrInvalid, i)
		case dup:
			return fmt.Errorf("%w: span id %q appears twice", ErrInvalid, sp.ID)
		case sp.RunID != "" && sp.RunID != d.Run.ID:
			return fmt.Errorf("%w: span %q belongs to run %q, not %q", ErrInvalid, sp.ID, sp.RunID, d.Run.ID)
		case !sp.Kind.IsKnown():
			return fmt.Errorf("%w: span %q has kind %q, not one of %s, %s, %s", ErrInvalid, sp.ID, sp.Kind,
				KindInvokeAgent, KindChat, KindExecuteTool)
		case !sp.Status.IsKnown():
			return fmt.Errorf("%w: span %q has status %q, not one of %s", ErrInvalid, sp.ID, sp.Status, statusList())
		case sp.ParentID == sp.ID:
			return fmt.Errorf("%w: span %q is its own parent", ErrInvalid, sp.ID)
		}
		if err := CheckID(sp.ID); err != nil {
			return fmt.Errorf("span %d: %w", i, err)
		}
		parent[sp.ID] = sp.ParentID
	}
	for _, sp := range d.Spans {
		if sp.ParentID != "" {
			if _, ok := parent[sp.ParentID]; !ok {
				return fmt.Errorf("%w: span %q has unknown parent %q", ErrInvalid, sp.ID, sp.ParentID)
			}
		}
	}
	return checkParentLoops(d.Spans, parent)
}

// checkParentLoops follows each span's parent links up to a root; links that
// come back to a span already on the way form a loop. Every span is walked
// once: a walk stops at spans known to reach a root.
func checkParentLoops(spans []Span, parent map[string]string) error {
	const onPath, rooted = 1, 2
	state := make(map[string]int, len(spans))
	for _, sp := range spans {
		var path []string
		id := sp.ID
		for id != "" && state[id] == 0 {
			state[id] = onPath
			path = append(path, id)
			id = parent[id]
		}
		if id != "" && state[id] == onPath {
			loop := path[slices.Index(path, id):]
			return fmt.Errorf("%w: spans %s have parents that form a loop", ErrInvalid, quoteAll(loop))
		}
		for _, p := range path {
			state[p] = rooted
		}
	}
	return nil
}

func statusList() string {
	names := make([]string, 0, 8)
	for _, s := range Statuses() {
		names = append(names, string(s))
	}
	return strings.Join(names, ", ")
}

func quoteAll(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = strconv.Quote(id)
	}
	return strings.Join(q, " → ")
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
