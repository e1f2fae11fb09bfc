package trace

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

var (
	_ VersionStore = (*Memory)(nil)
	_ EvalStore    = (*Memory)(nil)
)

// AddVersion records a version unless it is the newest already; see
// VersionStore.
func (m *Memory) AddVersion(ctx context.Context, v Version) (bool, error) {
	if err := CheckVersion(v); err != nil {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false, ErrClosed
	}
	if last, ok := m.latestLocked(v.Kind, v.Name); ok && last.Hash == v.Hash && last.Deleted == v.Deleted {
		return false, nil
	}
	v.Time, v.Content = v.Time.UTC(), slices.Clone(v.Content)
	m.versions = append(m.versions, v)
	return true, nil
}

func (m *Memory) latestLocked(kind, name string) (Version, bool) {
	for i := len(m.versions) - 1; i >= 0; i-- {
		if v := m.versions[i]; v.Kind == kind && v.Name == name {
			return v, true
		}
	}
	return Version{}, false
}

// LatestVersion returns the newest version of (kind, name); see VersionStore.
func (m *Memory) LatestVersion(ctx context.Context, kind, name string) (Version, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return Version{}, ErrClosed
	}
	v, ok := m.latestLocked(kind, name)
	if !ok {
		return Version{}, fmt.Errorf("%s %q has no versions: %w", kind, name, ErrNotFound)
	}
	v.Content = slices.Clone(v.Content)
	return v, nil
}

// LatestVersions returns the newest version of every name of kind; see
// VersionStore.
func (m *Memory) LatestVersions(ctx context.Context, kind string) (map[string]Version, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	out := map[string]Version{}
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
func (m *Memory) Versions(ctx context.Context, kind, name string) ([]Version, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	var out []Version
	for i := len(m.versions) - 1; i >= 0; i-- {
		if v := m.versions[i]; v.Kind == kind && v.Name == name {
			v.Content = nil
			out = append(out, v)
		}
	}
	return out, nil
}

// Version finds a version by hash or prefix; see VersionStore.
func (m *Memory) Version(ctx context.Context, kind, name, hash string) (Version, error) {
	if err := CheckHashPrefix(hash); err != nil {
		return Version{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return Version{}, ErrClosed
	}
	var found *Version
	for i := len(m.versions) - 1; i >= 0; i-- {
		v := m.versions[i]
		if v.Kind != kind || v.Name != name || v.Deleted || !strings.HasPrefix(v.Hash, hash) {
			continue
		}
		if found != nil && found.Hash != v.Hash {
			return Version{}, fmt.Errorf("version %s of %s %q: %w", hash, kind, name, ErrAmbiguous)
		}
		if found == nil {
			found = &v
		}
	}
	if found == nil {
		return Version{}, fmt.Errorf("version %s of %s %q: %w", hash, kind, name, ErrNotFound)
	}
	out := *found
	out.Content = slices.Clone(out.Content)
	return out, nil
}

// VersionUses lists the runs that invoked agent, by version; see
// VersionStore.
func (m *Memory) VersionUses(ctx context.Context, agent string, limit int) ([]VersionUse, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	var out []VersionUse
	for runID, spans := range m.spans {
		seen := map[string]bool{}
		for _, s := range spans {
			if s.Kind != KindInvokeAgent || s.Agent != agent {
				continue
			}
			h, _ := s.Attributes[AttrAgentVersion].(string)
			if seen[h] {
				continue
			}
			seen[h] = true
			r := m.runs[runID]
			out = append(out, VersionUse{RunID: runID, Hash: h, StartedAt: r.StartedAt, Status: r.Status})
		}
	}
	slices.SortFunc(out, func(a, b VersionUse) int {
		if c := b.StartedAt.Compare(a.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(b.RunID+b.Hash, a.RunID+a.Hash)
	})
	return out[:min(len(out), pageLimit(limit))], nil
}

type memEval struct {
	Eval
	cases []EvalCase
}

// AddEval stores an eval and its cases; see EvalStore.
func (m *Memory) AddEval(ctx context.Context, e Eval, cases []EvalCase) error {
	if err := CheckEval(e, cases); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	e.StartedAt, e.EndedAt, e.Versions = e.StartedAt.UTC(), e.EndedAt.UTC(), maps.Clone(e.Versions)
	m.evals = append(m.evals, memEval{e, slices.Clone(cases)})
	return nil
}

// Evals lists evals newest first; see EvalStore.
func (m *Memory) Evals(ctx context.Context, suite string, limit int) ([]Eval, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	var out []Eval
	for _, e := range m.evals {
		if suite == "" || e.Suite == suite {
			out = append(out, e.Eval)
		}
	}
	slices.SortFunc(out, func(a, b Eval) int {
		if c := b.StartedAt.Compare(a.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out[:min(len(out), pageLimit(limit))], nil
}

// Eval returns one eval and its cases; see EvalStore.
func (m *Memory) Eval(ctx context.Context, id string) (Eval, []EvalCase, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return Eval{}, nil, ErrClosed
	}
	for _, e := range m.evals {
		if e.ID == id {
			return e.Eval, slices.Clone(e.cases), nil
		}
	}
	return Eval{}, nil, fmt.Errorf("eval %q: %w", id, ErrNotFound)
}

// EvalOfRun returns the eval and case a run was made for; see EvalStore.
func (m *Memory) EvalOfRun(ctx context.Context, runID string) (Eval, EvalCase, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return Eval{}, EvalCase{}, ErrClosed
	}
	for _, e := range m.evals {
		for _, c := range e.cases {
			if c.RunID == runID && runID != "" {
				return e.Eval, c, nil
			}
		}
	}
	return Eval{}, EvalCase{}, fmt.Errorf("run %q belongs to no eval: %w", runID, ErrNotFound)
}
