package registry

import (
	"sync"
	"sync/atomic"
)

// Registry holds the current Snapshot and lets it be swapped while readers
// keep whatever snapshot they already hold. All methods are safe for
// concurrent use.
type Registry struct {
	cur  atomic.Pointer[Snapshot]
	mu   sync.Mutex
	subs map[chan struct{}]struct{}
	upd  sync.Mutex // serialises Update
}

// New returns a registry serving s (an empty snapshot when s is nil).
func New(s *Snapshot) *Registry {
	if s == nil {
		s = Empty(Options{})
	}
	r := &Registry{subs: map[chan struct{}]struct{}{}}
	r.cur.Store(s)
	return r
}

// Snapshot returns the current snapshot without locking.
func (r *Registry) Snapshot() *Snapshot { return r.cur.Load() }

// Replace makes s current and signals every subscriber.
func (r *Registry) Replace(s *Snapshot) {
	r.cur.Store(s)
	r.mu.Lock()
	defer r.mu.Unlock()
	for ch := range r.subs {
		select {
		case ch <- struct{}{}:
		default: // a signal is already pending; it covers this change too
		}
	}
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

// Subscribe returns a channel that receives a signal after each Replace.
// Signals coalesce: a slow reader gets one signal for several changes and
// should re-read Snapshot. The writer never blocks. The returned function
// unsubscribes and closes the channel; calling it twice is harmless.
func (r *Registry) Subscribe() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	r.mu.Lock()
	r.subs[ch] = struct{}{}
	r.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			r.mu.Lock()
			delete(r.subs, ch)
			r.mu.Unlock()
			close(ch)
		})
	}
}
