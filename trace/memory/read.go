package memory

import (
	"context"
	"fmt"

	"github.com/agentry/agentry/trace"
)

// The run page's reads and the upkeep of trace.Store. A store in process
// memory scans where the database stores use an index, which is the
// definition their contract suite checks them against.

// Skeleton returns a run's spans cut down to what a timeline row needs;
// see trace.Store.
func (m *Store) Skeleton(ctx context.Context, runID string) ([]trace.Span, int64, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, 0, trace.ErrClosed
	}
	spans := m.spansLocked(runID)
	var cursor int64
	for _, s := range m.spans[runID] {
		cursor = max(cursor, s.seq)
	}
	for i, sp := range spans {
		spans[i] = trace.SkeletonOf(sp)
	}
	return spans, cursor, nil
}

// Span returns one span whole; see trace.Store.
func (m *Store) Span(ctx context.Context, runID, spanID string) (trace.Span, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return trace.Span{}, trace.ErrClosed
	}
	for _, s := range m.spans[runID] {
		if s.ID == spanID {
			return copySpan(s.Span), nil
		}
	}
	return trace.Span{}, fmt.Errorf("span %q of run %q: %w", spanID, runID, trace.ErrNotFound)
}

// FindSpans returns the IDs of a run's spans that match q, by scanning
// them; see trace.Store.
func (m *Store) FindSpans(ctx context.Context, runID string, q trace.SpanQuery) ([]string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, trace.ErrClosed
	}
	var ids []string
	for _, s := range m.spans[runID] {
		if q.Matches(s.Span) {
			ids = append(ids, s.ID)
		}
	}
	return ids, nil
}

// MarkInterrupted marks nothing: every run in a Store was written by this
// process, which is alive while it asks; see trace.Store.
func (m *Store) MarkInterrupted(ctx context.Context) (int, error) {
	return 0, m.Ping(ctx)
}

// Ping reports trace.ErrClosed once the store is closed; see trace.Store.
func (m *Store) Ping(ctx context.Context) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return trace.ErrClosed
	}
	return nil
}
