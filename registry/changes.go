package registry

import "sync"

// Changes tells subscribers that what they watch (a snapshot, a library, a
// set of workflows) was replaced. Signals coalesce: a slow reader gets one
// signal for several changes and re-reads what it watches, so the writer
// never blocks on a reader. The zero value is ready to use; it is safe for
// concurrent use.
type Changes struct {
	mu   sync.Mutex
	subs map[chan struct{}]struct{}
}

// Subscribe returns a channel that receives a signal after each Notify.
// The returned function unsubscribes and closes the channel; calling it
// twice is harmless.
func (c *Changes) Subscribe() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	c.mu.Lock()
	if c.subs == nil {
		c.subs = map[chan struct{}]struct{}{}
	}
	c.subs[ch] = struct{}{}
	c.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			c.mu.Lock()
			delete(c.subs, ch)
			c.mu.Unlock()
			close(ch)
		})
	}
}

// Notify signals every subscriber.
func (c *Changes) Notify() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for ch := range c.subs {
		select {
		case ch <- struct{}{}:
		default: // a signal is already pending; it covers this change too
		}
	}
}
