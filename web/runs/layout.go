package runs

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentry/agentry/trace"
)

// The server keeps each run's layout (its Timeline) so that a scroll, an
// expand or "next error" costs one walk of the rows already laid out
// instead of a read of the whole run. A layout is checked against the store
// at most every layoutRecheck (one cheap SpansSince) and rebuilt when the
// run changed; the live stream asks for a redraw (regrow) from time to time
// so running bars grow. Only maxLayouts runs, and rows of at most
// maxLayoutRows spans in all, are kept (a laid-out span is about 420 bytes); the
// least recently used go first, but the one just asked for always stays, and
// a run the store does not hold is never kept (so asking for one evicts
// nothing).
const (
	maxLayouts    = 4
	maxLayoutRows = 600_000
	layoutRecheck = 250 * time.Millisecond
	maxViews      = 8 // visible-row lists kept per layout, by view
)

// layouts is the server's cache of run layouts; safe for concurrent use.
type layouts struct {
	mu   sync.Mutex
	runs map[string]*layout
	used []string // run IDs, least recently used first
}

// current returns run id's layout brought up to date (layout.current) and
// keeps it among the last few. A run the store does not hold, or cannot
// read, is not kept: asking for it evicts nothing.
func (ls *layouts) current(ctx context.Context, store RunStore, id string, now time.Time) (*layout, *Timeline, int, error) {
	l := ls.of(id)
	tl, version, err := l.current(ctx, store, now)
	if err != nil {
		return nil, nil, 0, err
	}
	ls.keep(l)
	return l, tl, version, nil
}

// of returns run id's kept layout, or a new empty one (filled on first
// use, kept by keep).
func (ls *layouts) of(id string) *layout {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if l, ok := ls.runs[id]; ok {
		return l
	}
	return &layout{id: id}
}

// keep makes l its run's kept layout, the most recently used, and drops
// the least recently used over the budget (never l).
func (ls *layouts) keep(l *layout) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.runs == nil {
		ls.runs = map[string]*layout{}
	}
	ls.runs[l.id] = l
	ls.used = append(without(ls.used, l.id), l.id)
	total := int64(0)
	for _, u := range ls.used {
		total += ls.runs[u].size.Load()
	}
	for len(ls.used) > 1 && (len(ls.used) > maxLayouts || total > maxLayoutRows) {
		total -= ls.runs[ls.used[0]].size.Load()
		delete(ls.runs, ls.used[0])
		ls.used = ls.used[1:]
	}
}

// layout is one run's laid-out rows, kept current with the store.
type layout struct {
	id   string
	size atomic.Int64 // spans laid out, for the cache's budget

	mu      sync.Mutex
	tl      *Timeline // immutable once built; replaced, never changed
	version int       // counts builds, so the live page knows to refetch
	run     trace.Run
	cursor  int64        // SpansSince cursor of what tl shows
	spans   []trace.Span // kept (as skeletons) only while the run is going
	index   map[string]int
	checked time.Time // last look at the store
	views   map[string][]*TimelineRow
}

// current returns the run's layout, read or brought up to date as needed,
// and its version.
func (l *layout) current(ctx context.Context, store RunStore, now time.Time) (*Timeline, int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tl != nil && time.Since(l.checked) < layoutRecheck { // the clock of the process, not the page's
		return l.tl, l.version, nil
	}
	run, err := store.Run(ctx, l.id)
	if err != nil {
		return nil, 0, err
	}
	if err := l.refresh(ctx, store, run, now); err != nil {
		return nil, 0, err
	}
	l.checked = time.Now()
	return l.tl, l.version, nil
}

// refresh reads what changed and rebuilds when the page would look different.
func (l *layout) refresh(ctx context.Context, store RunStore, run trace.Run, now time.Time) error {
	if l.tl == nil {
		return l.readAll(ctx, store, run, now)
	}
	changed, cursor, err := store.SpansSince(ctx, l.id, l.cursor)
	if err != nil {
		return err
	}
	same := run.Status == l.run.Status && run.EndedAt.Equal(l.run.EndedAt) && run.Agents == l.run.Agents &&
		run.InputTokens == l.run.InputTokens && run.OutputTokens == l.run.OutputTokens
	switch {
	case len(changed) == 0 && same:
		return nil
	case l.spans == nil && len(changed) > 0: // an ended run changed after all: read it anew
		return l.readAll(ctx, store, run, now)
	}
	l.merge(changed)
	l.cursor = max(l.cursor, cursor)
	l.build(run, now)
	return nil
}

// readAll reads the run's spans narrowly (Skeleton) and lays them out.
func (l *layout) readAll(ctx context.Context, store RunStore, run trace.Run, now time.Time) error {
	spans, cursor, err := store.Skeleton(ctx, l.id)
	if err != nil {
		return err
	}
	l.spans, l.index, l.cursor = spans, nil, cursor
	l.build(run, now)
	return nil
}

// merge folds changed spans into the kept ones, in start order.
func (l *layout) merge(changed []trace.Span) {
	if l.index == nil {
		l.index = make(map[string]int, len(l.spans))
		for i, sp := range l.spans {
			l.index[sp.ID] = i
		}
	}
	reorder := false
	for _, sp := range changed {
		sp = trace.SkeletonOf(sp)
		if i, ok := l.index[sp.ID]; ok {
			l.spans[i] = sp
			continue
		}
		if n := len(l.spans); n > 0 && sp.StartedAt.Before(l.spans[n-1].StartedAt) {
			reorder = true
		}
		l.index[sp.ID] = len(l.spans)
		l.spans = append(l.spans, sp)
	}
	if reorder {
		slices.SortStableFunc(l.spans, func(a, b trace.Span) int { return a.StartedAt.Compare(b.StartedAt) })
		for i, sp := range l.spans {
			l.index[sp.ID] = i
		}
	}
}

// build lays the kept spans out; an ended run's spans are dropped after, as
// its rows hold all the page needs.
func (l *layout) build(run trace.Run, now time.Time) {
	tl := BuildTimeline(run, l.spans, now)
	l.tl, l.run, l.views = &tl, run, nil
	l.size.Store(int64(tl.Spans))
	l.version++
	if run.Status.IsFinal() {
		l.spans, l.index = nil, nil
	}
}

// regrow lays a live run out again at now, so running bars reach it; an
// ended run's layout is returned as it is.
func (l *layout) regrow(now time.Time) (*Timeline, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.spans != nil && l.tl != nil {
		l.build(l.run, now)
	}
	return l.tl, l.version
}

// visible returns the rows v shows of tl, remembered per view while tl is
// current.
func (l *layout) visible(tl *Timeline, v view) []*TimelineRow {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := v.key()
	if tl == l.tl {
		if rows, ok := l.views[key]; ok {
			return rows
		}
	}
	rows := tl.visible(v)
	if tl == l.tl {
		if l.views == nil || len(l.views) >= maxViews {
			l.views = map[string][]*TimelineRow{}
		}
		l.views[key] = rows
	}
	return rows
}
