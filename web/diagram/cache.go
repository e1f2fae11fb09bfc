package diagram

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"sync"
)

// cacheSize bounds the remembered layouts: the graph page and a few dozen
// workflows, each kept until 64 others were drawn since it was last used.
const cacheSize = 64

// layouts is the process's cache of drawings.
var layouts = &cache{max: cacheSize, run: runDot}

// cache remembers drawings by the hash of their Graph, least recently used
// out first. It is safe for concurrent use.
type cache struct {
	max     int
	run     func(context.Context, Graph) (Drawing, error)
	mu      sync.Mutex
	clock   uint64
	entries map[[32]byte]*entry
}

type entry struct {
	d    Drawing
	used uint64
}

// get answers from the cache or runs dot. Errors are not remembered, so a
// failure is retried on the next request.
func (c *cache) get(ctx context.Context, g Graph) (Drawing, error) {
	key, err := keyOf(g)
	if err != nil {
		return Drawing{}, err
	}
	if d, ok := c.lookup(key); ok {
		return d, nil
	}
	d, err := c.run(ctx, g)
	if err != nil {
		return Drawing{}, err
	}
	c.store(key, d)
	return d, nil
}

func (c *cache) lookup(key [32]byte) (Drawing, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return Drawing{}, false
	}
	c.clock++
	e.used = c.clock
	return e.d, true
}

func (c *cache) store(key [32]byte, d Drawing) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = make(map[[32]byte]*entry, c.max)
	}
	if _, ok := c.entries[key]; !ok && len(c.entries) >= c.max {
		var oldest [32]byte
		first := true
		for k, e := range c.entries {
			if first || e.used < c.entries[oldest].used {
				oldest, first = k, false
			}
		}
		delete(c.entries, oldest)
	}
	c.clock++
	c.entries[key] = &entry{d: d, used: c.clock}
}

// keyOf hashes every field of g, so any change is a new layout.
func keyOf(g Graph) ([32]byte, error) {
	b, err := json.Marshal(g)
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(b), nil
}
