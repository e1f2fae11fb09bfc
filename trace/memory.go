package trace

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Memory is a Store held in process memory, for tests of code that records or
// reads traces. It behaves like trace/sqlite, down to attributes coming back
// as JSON decodes them, and passes the same conformance suite.
type Memory struct {
	mu     sync.RWMutex
	closed bool
	runs   map[string]Run
	spans  map[string][]memSpan // by run ID, in insertion order
	seq    int64
	// approvals are the ApprovalStore's rows (approval_memory.go).
	approvals map[string]Approval
	// versions and evals are the VersionStore's and EvalStore's rows
	// (version_memory.go).
	versions []Version
	evals    []memEval
}

type memSpan struct {
	Span
	seq int64
}

var _ Store = (*Memory)(nil)

// ErrClosed is returned by a Memory store used after Close.
var ErrClosed = errors.New("store closed")

// NewMemory returns an empty Memory store.
func NewMemory() *Memory {
	return &Memory{runs: map[string]Run{}, spans: map[string][]memSpan{}}
}

// Apply upserts runs and spans; see Store.
func (m *Memory) Apply(ctx context.Context, runs []Run, spans []Span) error {
	if err := CheckApply(runs, spans); err != nil {
		return err
	}
	norm := make([]Span, len(spans))
	for i, sp := range spans {
		norm[i] = normSpan(sp)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	for _, r := range runs {
		m.runs[r.ID] = normRun(r)
	}
	for _, sp := range norm {
		m.upsertSpan(sp)
	}
	return nil
}

func (m *Memory) upsertSpan(sp Span) {
	m.seq++
	list := m.spans[sp.RunID]
	for i := range list {
		if list[i].ID == sp.ID {
			list[i] = memSpan{sp, m.seq}
			return
		}
	}
	m.spans[sp.RunID] = append(list, memSpan{sp, m.seq})
}

// Runs lists runs newest first; see Store.
func (m *Memory) Runs(ctx context.Context, f RunFilter) (RunPage, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return RunPage{}, ErrClosed
	}
	match, err := newRunMatcher(f)
	if err != nil {
		return RunPage{}, err
	}
	var all []Run
	for _, r := range m.runs {
		if match(r) {
			all = append(all, r)
		}
	}
	if f.Sort == SortCost && f.Cursor != "" {
		return RunPage{}, fmt.Errorf("%w: a cursor pages runs newest first only; page a cost listing by offset", ErrInvalid)
	}
	slices.SortFunc(all, func(a, b Run) int {
		if f.Sort == SortCost && a.CostUSD != b.CostUSD {
			return cmp.Compare(b.CostUSD, a.CostUSD)
		}
		if Before(a, b) {
			return -1
		}
		return 1
	})
	all = all[min(max(f.Offset, 0), len(all)):]
	limit := pageLimit(f.Limit)
	page := RunPage{Runs: all[:min(limit, len(all))], More: len(all) > limit}
	if page.More {
		page.Next = Cursor(page.Runs[len(page.Runs)-1])
	}
	return page, nil
}

// pageLimit applies DefaultLimit and MaxLimit to a requested page size.
func pageLimit(n int) int {
	if n <= 0 {
		return DefaultLimit
	}
	return min(n, MaxLimit)
}

// newRunMatcher turns a filter (cursor included) into a predicate.
func newRunMatcher(f RunFilter) (func(Run) bool, error) {
	var after *Run
	if f.Cursor != "" {
		t, id, err := ParseCursor(f.Cursor)
		if err != nil {
			return nil, err
		}
		after = &Run{ID: id, StartedAt: t}
	}
	text := strings.ToLower(f.Text)
	return func(r Run) bool {
		return (f.Agent == "" || r.Agent == f.Agent) &&
			(f.Status == "" || r.Status == f.Status) &&
			(f.Since.IsZero() || !r.StartedAt.Before(f.Since)) &&
			(f.Until.IsZero() || r.StartedAt.Before(f.Until)) &&
			(text == "" || strings.Contains(strings.ToLower(r.Task), text) ||
				strings.Contains(strings.ToLower(r.Result), text)) &&
			(after == nil || Before(*after, r))
	}, nil
}

// Run returns one run; see Store.
func (m *Memory) Run(ctx context.Context, id string) (Run, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return Run{}, ErrClosed
	}
	r, ok := m.runs[id]
	if !ok {
		return Run{}, fmt.Errorf("run %q: %w", id, ErrNotFound)
	}
	return r, nil
}

// Spans returns a run's spans in start order; see Store.
func (m *Memory) Spans(ctx context.Context, runID string) ([]Span, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	return m.spansLocked(runID), nil
}

func (m *Memory) spansLocked(runID string) []Span {
	out := make([]Span, 0, len(m.spans[runID]))
	for _, s := range m.spans[runID] {
		out = append(out, copySpan(s.Span))
	}
	slices.SortStableFunc(out, func(a, b Span) int { return a.StartedAt.Compare(b.StartedAt) })
	return out
}

// SpansSince returns spans changed after cursor; see Store.
func (m *Memory) SpansSince(ctx context.Context, runID string, cursor int64) ([]Span, int64, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, cursor, ErrClosed
	}
	var changed []memSpan
	for _, s := range m.spans[runID] {
		if s.seq > cursor {
			changed = append(changed, s)
		}
	}
	slices.SortFunc(changed, func(a, b memSpan) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]Span, len(changed))
	for i, s := range changed {
		out[i], cursor = copySpan(s.Span), s.seq
	}
	return out, cursor, nil
}

// Rollup sums a run's spans per agent; see Store.
func (m *Memory) Rollup(ctx context.Context, runID string) ([]AgentRollup, error) {
	spans, err := m.Spans(ctx, runID)
	if err != nil {
		return nil, err
	}
	return RollupSpans(spans), nil
}

// Export returns a run and its spans; see Store.
func (m *Memory) Export(ctx context.Context, id string) (Document, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return Document{}, ErrClosed
	}
	r, ok := m.runs[id]
	if !ok {
		return Document{}, fmt.Errorf("run %q: %w", id, ErrNotFound)
	}
	return Document{Run: r, Spans: m.spansLocked(id)}, nil
}

// Import stores a document; see Store.
func (m *Memory) Import(ctx context.Context, d Document) (string, error) {
	if err := d.Validate(); err != nil {
		return "", fmt.Errorf("import: %w", err)
	}
	m.mu.RLock()
	_, taken := m.runs[d.Run.ID]
	m.mu.RUnlock()
	id := d.Run.ID
	if taken {
		id = NewRunID()
	}
	d = d.WithRunID(id)
	return id, m.Apply(ctx, []Run{d.Run}, d.Spans)
}

// Delete removes a run and its spans; see Store.
func (m *Memory) Delete(ctx context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	if _, ok := m.runs[id]; !ok {
		return fmt.Errorf("delete run %q: %w", id, ErrNotFound)
	}
	delete(m.runs, id)
	delete(m.spans, id)
	return nil
}

// Close makes further calls fail with ErrClosed.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}

// normRun gives a run the form a database returns: UTC times.
func normRun(r Run) Run {
	r.StartedAt, r.EndedAt = r.StartedAt.UTC(), r.EndedAt.UTC()
	return r
}

// normSpan gives a span the form a database returns: UTC times and
// attributes decoded from JSON, which also makes it the store's own copy.
func normSpan(sp Span) Span {
	sp.StartedAt, sp.EndedAt = sp.StartedAt.UTC(), sp.EndedAt.UTC()
	sp.Attributes = jsonAttributes(sp.Attributes)
	if len(sp.Events) == 0 {
		sp.Events = nil
		return sp
	}
	events := make([]Event, len(sp.Events))
	for i, e := range sp.Events {
		events[i] = Event{Time: e.Time.UTC(), Name: e.Name}
		if len(e.Attributes) > 0 {
			events[i].Attributes = jsonAttributes(e.Attributes)
		}
	}
	sp.Events = events
	return sp
}

// jsonAttributes returns attrs as JSON decodes them, in a new map.
func jsonAttributes(attrs map[string]any) map[string]any {
	var out map[string]any
	_ = json.Unmarshal(EncodeAttributes(attrs), &out) // valid JSON by construction
	return out
}

// copySpan gives the caller its own top-level attribute maps and events.
func copySpan(sp Span) Span {
	if sp.Attributes != nil {
		sp.Attributes = maps.Clone(sp.Attributes)
	}
	if sp.Events != nil {
		sp.Events = slices.Clone(sp.Events)
		for i := range sp.Events {
			sp.Events[i].Attributes = maps.Clone(sp.Events[i].Attributes)
		}
	}
	return sp
}
