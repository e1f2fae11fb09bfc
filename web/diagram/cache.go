package diagram

import (
	"context"
	"crypto/sha256"
	"encoding/json"

	lru "github.com/hashicorp/golang-lru/v2"
)

// cacheSize bounds the remembered layouts: the graph page and a few dozen
// workflows, each kept until 64 others were drawn since it was last used.
const cacheSize = 64

// layouts is the process's cache of drawings.
var layouts = newCache(cacheSize, runDot)

// cache remembers drawings by the hash of their Graph, least recently used
// out first (golang-lru, as web/runs keeps its tallies). It is safe for
// concurrent use.
type cache struct {
	run     func(context.Context, Graph) (Drawing, error)
	entries *lru.Cache[[32]byte, Drawing]
}

// newCache is a cache of size drawings that lays a graph out with run.
func newCache(size int, run func(context.Context, Graph) (Drawing, error)) *cache {
	entries, _ := lru.New[[32]byte, Drawing](size) // fails only for a size below 1
	return &cache{run: run, entries: entries}
}

// get answers from the cache or runs dot. Errors are not remembered, so a
// failure is retried on the next request.
func (c *cache) get(ctx context.Context, g Graph) (Drawing, error) {
	key, err := keyOf(g)
	if err != nil {
		return Drawing{}, err
	}
	if d, ok := c.entries.Get(key); ok {
		return d, nil
	}
	d, err := c.run(ctx, g)
	if err != nil {
		return Drawing{}, err
	}
	c.entries.Add(key, d)
	return d, nil
}

// keyOf hashes every field of g, so any change is a new layout.
func keyOf(g Graph) ([32]byte, error) {
	b, err := json.Marshal(g)
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(b), nil
}
