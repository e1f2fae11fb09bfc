package memory

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/internal/storekit"
)

var (
	_ trace.VersionStore = (*Store)(nil)
	_ trace.EvalStore    = (*Store)(nil)
)

// AddVersion records a version unless it is the newest already; see
// VersionStore.
func (m *Store) AddVersion(ctx context.Context, v trace.Version) (bool, error) {
	if err := trace.CheckVersion(v); err != nil {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false, trace.ErrClosed
	}
	if last, ok := m.latestLocked(v.Kind, v.Name); ok && last.Hash == v.Hash && last.Deleted == v.Deleted {
		return false, nil
	}
	v.Time, v.Content = v.Time.UTC(), slices.Clone(v.Content)
	m.versions = append(m.versions, v)
	return true, nil
}

func (m *Store) latestLocked(kind, name string) (trace.Version, bool) {
	for i := len(m.versions) - 1; i >= 0; i-- {
		if v := m.versions[i]; v.Kind == kind && v.Name == name {
			return v, true
		}
	}
	return trace.Version{}, false
}

// LatestVersion returns the newest version of (kind, name); see VersionStore.
func (m *Store) LatestVersion(ctx context.Context, kind, name string) (trace.Version, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return trace.Version{}, trace.ErrClosed
	}
	v, ok := m.latestLocked(kind, name)
	if !ok {
		return trace.Version{}, fmt.Errorf("%s %q has no versions: %w", kind, name, trace.ErrNotFound)
	}
	v.Content = slices.Clone(v.Content)
	return v, nil
}

// LatestVersions returns the newest version of every name of kind; see
// VersionStore.
func (m *Store) LatestVersions(ctx context.Context, kind string) (map[string]trace.Version, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, trace.ErrClosed
	}
	out := map[string]trace.Version{}
	for _, v := range m.versions {
		if v.Kind == kind {
			v.Content = nil
			out[v.Name] = v
		}
	}
	return out, nil
}

// Versions lists the versions of (kind, name) newest first; see
// VersionStore.
func (m *Store) Versions(ctx context.Context, kind, name string) ([]trace.Version, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, trace.ErrClosed
	}
	var out []trace.Version
	for i := len(m.versions) - 1; i >= 0; i-- {
		if v := m.versions[i]; v.Kind == kind && v.Name == name {
			v.Content = nil
			out = append(out, v)
		}
	}
	return out, nil
}

// Version finds a version by hash or prefix; see VersionStore.
func (m *Store) Version(ctx context.Context, kind, name, hash string) (trace.Version, error) {
	if err := trace.CheckHashPrefix(hash); err != nil {
		return trace.Version{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return trace.Version{}, trace.ErrClosed
	}
	var found *trace.Version
	for i := len(m.versions) - 1; i >= 0; i-- {
		v := m.versions[i]
		if v.Kind != kind || v.Name != name || v.Deleted || !strings.HasPrefix(v.Hash, hash) {
			continue
		}
		if found != nil && found.Hash != v.Hash {
			return trace.Version{}, fmt.Errorf("version %s of %s %q: %w", hash, kind, name, trace.ErrAmbiguous)
		}
		if found == nil {
			found = &v
		}
	}
	if found == nil {
		return trace.Version{}, fmt.Errorf("version %s of %s %q: %w", hash, kind, name, trace.ErrNotFound)
	}
	out := *found
	out.Content = slices.Clone(out.Content)
	return out, nil
}

// VersionUses lists the runs that ran the file of kind named name, by
// version; see VersionStore.
func (m *Store) VersionUses(ctx context.Context, kind, name string, limit int) ([]trace.VersionUse, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, trace.ErrClosed
	}
	by, ok := trace.VersionSpans[kind]
	if !ok {
		return nil, nil
	}
	var out []trace.VersionUse
	for runID, spans := range m.spans {
		seen := map[string]bool{}
		for _, s := range spans {
			h, ran := by.Ran(s.Span, name)
			if !ran || seen[h] {
				continue
			}
			seen[h] = true
			r := m.runs[runID]
			out = append(out, trace.VersionUse{RunID: runID, Hash: h, StartedAt: r.StartedAt, Status: r.Status})
		}
	}
	return newestFirst(out, limit, func(u trace.VersionUse) (time.Time, string) { return u.StartedAt, u.RunID + u.Hash }), nil
}

type memEval struct {
	trace.Eval
	cases []trace.EvalCase
}

// AddEval stores an eval and its cases; see EvalStore.
func (m *Store) AddEval(ctx context.Context, e trace.Eval, cases []trace.EvalCase) error {
	if err := trace.CheckEval(e, cases); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return trace.ErrClosed
	}
	e.StartedAt, e.EndedAt, e.Versions = e.StartedAt.UTC(), e.EndedAt.UTC(), maps.Clone(e.Versions)
	m.evals = append(m.evals, memEval{e, slices.Clone(cases)})
	return nil
}

// Evals lists evals newest first; see EvalStore.
func (m *Store) Evals(ctx context.Context, suite string, limit int) ([]trace.Eval, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, trace.ErrClosed
	}
	var out []trace.Eval
	for _, e := range m.evals {
		if suite == "" || e.Suite == suite {
			out = append(out, e.Eval)
		}
	}
	return newestFirst(out, limit, func(e trace.Eval) (time.Time, string) { return e.StartedAt, e.ID }), nil
}

// newestFirst orders a listing as the SQL stores do (ORDER BY started_at
// DESC, id DESC), by the start time and id key gives, and cuts it to a page
// of limit (storekit.PageLimit).
func newestFirst[T any](list []T, limit int, key func(T) (time.Time, string)) []T {
	slices.SortFunc(list, func(a, b T) int {
		at, aid := key(a)
		bt, bid := key(b)
		return cmp.Or(bt.Compare(at), strings.Compare(bid, aid))
	})
	return list[:min(len(list), storekit.PageLimit(limit))]
}

// Eval returns one eval and its cases; see EvalStore.
func (m *Store) Eval(ctx context.Context, id string) (trace.Eval, []trace.EvalCase, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return trace.Eval{}, nil, trace.ErrClosed
	}
	for _, e := range m.evals {
		if e.ID == id {
			return e.Eval, slices.Clone(e.cases), nil
		}
	}
	return trace.Eval{}, nil, fmt.Errorf("eval %q: %w", id, trace.ErrNotFound)
}

// EvalOfRun returns the eval and case a run was made for; see EvalStore.
func (m *Store) EvalOfRun(ctx context.Context, runID string) (trace.Eval, trace.EvalCase, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return trace.Eval{}, trace.EvalCase{}, trace.ErrClosed
	}
	for _, e := range m.evals {
		for _, c := range e.cases {
			if c.RunID == runID && runID != "" {
				return e.Eval, c, nil
			}
		}
	}
	return trace.Eval{}, trace.EvalCase{}, fmt.Errorf("run %q belongs to no eval: %w", runID, trace.ErrNotFound)
}
