package memory

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/conversation"
	"github.com/agentry/agentry/trace/internal/storekit"
)

// Store is a trace store held in process memory, for tests of code that
// records or reads traces. It behaves like trace/sqlite, down to attributes
// coming back as JSON decodes them, and passes the same conformance suite.
type Store struct {
	mu     sync.RWMutex
	closed bool
	runs   map[string]trace.Run
	spans  map[string][]memSpan // by run ID, in insertion order
	seq    int64
	// versions and evals are the VersionStore's and EvalStore's rows
	// (version.go).
	versions []trace.Version
	evals    []memEval
	// Approvals and conversations are kept beside runs, as the database
	// stores keep them.
	*approvals
	*conversations
}

// approvals and conversations name the embedded stores without exporting
// them.
type (
	approvals     = approval.Memory
	conversations = conversation.Memory
)

type memSpan struct {
	trace.Span
	seq int64
}

var (
	_ trace.Store        = (*Store)(nil)
	_ approval.Store     = (*Store)(nil)
	_ conversation.Store = (*Store)(nil)
)

// New returns an empty Store.
func New() *Store {
	return &Store{runs: map[string]trace.Run{}, spans: map[string][]memSpan{}, approvals: approval.NewMemory(), conversations: conversation.NewMemory()}
}

// Apply upserts runs and spans; see trace.Store.
func (m *Store) Apply(ctx context.Context, runs []trace.Run, spans []trace.Span) error {
	if err := storekit.CheckApply(runs, spans); err != nil {
		return err
	}
	norm := make([]trace.Span, len(spans))
	for i, sp := range spans {
		norm[i] = normSpan(sp)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return trace.ErrClosed
	}
	for _, r := range runs {
		m.runs[r.ID] = normRun(r)
	}
	for _, sp := range norm {
		m.upsertSpan(sp)
	}
	return nil
}

func (m *Store) upsertSpan(sp trace.Span) {
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

// Runs lists runs newest first; see trace.Store.
func (m *Store) Runs(ctx context.Context, f trace.RunFilter) (trace.RunPage, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return trace.RunPage{}, trace.ErrClosed
	}
	match, err := newRunMatcher(f)
	if err != nil {
		return trace.RunPage{}, err
	}
	var all []trace.Run
	for _, r := range m.runs {
		if match(r) {
			all = append(all, r)
		}
	}
	if f.Sort == trace.SortCost && f.Cursor != "" {
		return trace.RunPage{}, fmt.Errorf("%w: a cursor pages runs newest first only; page a cost listing by offset", trace.ErrInvalid)
	}
	slices.SortFunc(all, func(a, b trace.Run) int {
		if f.Sort == trace.SortCost && a.CostUSD != b.CostUSD {
			return cmp.Compare(b.CostUSD, a.CostUSD)
		}
		if before(a, b) {
			return -1
		}
		return 1
	})
	all = all[min(max(f.Offset, 0), len(all)):]
	limit := storekit.PageLimit(f.Limit)
	page := trace.RunPage{Runs: all[:min(limit, len(all))], More: len(all) > limit}
	if page.More {
		page.Next = storekit.Cursor(page.Runs[len(page.Runs)-1])
	}
	return page, nil
}

// newRunMatcher turns a filter (cursor included) into a predicate.
func newRunMatcher(f trace.RunFilter) (func(trace.Run) bool, error) {
	var after *trace.Run
	if f.Cursor != "" {
		t, id, err := storekit.ParseCursor(f.Cursor)
		if err != nil {
			return nil, err
		}
		after = &trace.Run{ID: id, StartedAt: t}
	}
	text := strings.ToLower(f.Text)
	return func(r trace.Run) bool {
		return (f.Agent == "" || r.Agent == f.Agent) &&
			(f.Status == "" || r.Status == f.Status) &&
			(f.Since.IsZero() || !r.StartedAt.Before(f.Since)) &&
			(f.Until.IsZero() || r.StartedAt.Before(f.Until)) &&
			(text == "" || strings.Contains(strings.ToLower(r.Task), text) ||
				strings.Contains(strings.ToLower(r.Result), text)) &&
			(after == nil || before(*after, r))
	}, nil
}

// Run returns one run; see trace.Store.
func (m *Store) Run(ctx context.Context, id string) (trace.Run, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.runLocked(id)
}

// runLocked is Run with m.mu held.
func (m *Store) runLocked(id string) (trace.Run, error) {
	if m.closed {
		return trace.Run{}, trace.ErrClosed
	}
	r, ok := m.runs[id]
	if !ok {
		return trace.Run{}, fmt.Errorf("run %q: %w", id, trace.ErrNotFound)
	}
	return r, nil
}

// Spans returns a run's spans in start order; see trace.Store.
func (m *Store) Spans(ctx context.Context, runID string) ([]trace.Span, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, trace.ErrClosed
	}
	return m.spansLocked(runID), nil
}

func (m *Store) spansLocked(runID string) []trace.Span {
	out := make([]trace.Span, 0, len(m.spans[runID]))
	for _, s := range m.spans[runID] {
		out = append(out, copySpan(s.Span))
	}
	slices.SortStableFunc(out, func(a, b trace.Span) int { return a.StartedAt.Compare(b.StartedAt) })
	return out
}

// SpansSince returns spans changed after cursor; see trace.Store.
func (m *Store) SpansSince(ctx context.Context, runID string, cursor int64) ([]trace.Span, int64, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, cursor, trace.ErrClosed
	}
	var changed []memSpan
	for _, s := range m.spans[runID] {
		if s.seq > cursor {
			changed = append(changed, s)
		}
	}
	slices.SortFunc(changed, func(a, b memSpan) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]trace.Span, len(changed))
	for i, s := range changed {
		out[i], cursor = copySpan(s.Span), s.seq
	}
	return out, cursor, nil
}

// Rollup sums a run's spans per agent; see trace.Store.
func (m *Store) Rollup(ctx context.Context, runID string) ([]trace.AgentRollup, error) {
	spans, err := m.Spans(ctx, runID)
	if err != nil {
		return nil, err
	}
	return rollup(spans), nil
}

// Export returns a run and its spans; see trace.Store.
func (m *Store) Export(ctx context.Context, id string) (trace.Document, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	r, err := m.runLocked(id)
	if err != nil {
		return trace.Document{}, err
	}
	return trace.Document{Run: r, Spans: m.spansLocked(id)}, nil
}

// Import stores a document; see trace.Store.
func (m *Store) Import(ctx context.Context, d trace.Document) (string, error) {
	if err := d.Validate(); err != nil {
		return "", fmt.Errorf("import: %w", err)
	}
	m.mu.RLock()
	_, taken := m.runs[d.Run.ID]
	m.mu.RUnlock()
	id := d.Run.ID
	if taken {
		id = trace.NewRunID()
	}
	d = d.WithRunID(id)
	return id, m.Apply(ctx, []trace.Run{d.Run}, d.Spans)
}

// Delete removes a run and its spans; see trace.Store.
func (m *Store) Delete(ctx context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return trace.ErrClosed
	}
	if _, ok := m.runs[id]; !ok {
		return fmt.Errorf("delete run %q: %w", id, trace.ErrNotFound)
	}
	delete(m.runs, id)
	delete(m.spans, id)
	return nil
}

// Close makes further calls fail with trace.ErrClosed.
func (m *Store) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}

// normRun gives a run the form a database returns: UTC times.
func normRun(r trace.Run) trace.Run {
	r.StartedAt, r.EndedAt = r.StartedAt.UTC(), r.EndedAt.UTC()
	return r
}

// normSpan gives a span the form a database returns: UTC times and
// attributes decoded from JSON, which also makes it the store's own copy.
func normSpan(sp trace.Span) trace.Span {
	sp.StartedAt, sp.EndedAt = sp.StartedAt.UTC(), sp.EndedAt.UTC()
	sp.Attributes = jsonAttributes(sp.Attributes)
	if len(sp.Events) == 0 {
		sp.Events = nil
		return sp
	}
	events := make([]trace.Event, len(sp.Events))
	for i, e := range sp.Events {
		events[i] = trace.Event{Time: e.Time.UTC(), Name: e.Name}
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
	_ = json.Unmarshal(trace.EncodeAttributes(attrs), &out) // valid JSON by construction
	return out
}

// copySpan gives the caller its own top-level attribute maps and events.
func copySpan(sp trace.Span) trace.Span {
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
