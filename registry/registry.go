package registry

import (
	"sync"
	"sync/atomic"
)

// Registry holds the current Snapshot and lets it be swapped while readers
// keep whatever snapshot they already hold. All methods are safe for
// concurrent use.
type Registry struct {
	cur     atomic.Pointer[Snapshot]
	changes Changes
	upd     sync.Mutex // serialises Update
}

// New returns a registry serving s (an empty snapshot when s is nil).
func New(s *Snapshot) *Registry {
	if s == nil {
		s = Empty(Options{})
	}
	r := &Registry{}
	r.cur.Store(s)
	return r
}

// Snapshot returns the current snapshot without locking.
func (r *Registry) Snapshot() *Snapshot { return r.cur.Load() }

// Replace makes s current and signals every subscriber.
func (r *Registry) Replace(s *Snapshot) {
	r.cur.Store(s)
	r.changes.Notify()
}

// Update replaces the current snapshot with f of it, unless f returns it
// unchanged; updates are serialised, so two folders feeding one registry
// (the agents folder and the installed plugins) never lose each other's
// change.
func (r *Registry) Update(f func(*Snapshot) *Snapshot) {
	r.upd.Lock()
	defer r.upd.Unlock()
	cur := r.Snapshot()
	if next := f(cur); next != cur {
		r.Replace(next)
	}
}

// Subscribe returns a channel that receives a signal after each Replace
// (see Changes): a slow reader gets one signal for several changes and
// should re-read Snapshot.
func (r *Registry) Subscribe() (<-chan struct{}, func()) { return r.changes.Subscribe() }
