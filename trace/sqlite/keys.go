package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"

	"github.com/agentry/agentry/trace"
)

// runKeys maps run IDs to their run_keys.pk within one transaction.
type runKeys map[string]int64

// of returns the key of runID from this transaction or the cache.
func (k runKeys) of(c *keyCache, runID string) int64 {
	if key, ok := k[runID]; ok {
		return key
	}
	key, _ := c.get(runID)
	return key
}

// keyCache remembers committed run keys. A key never changes once committed
// (rows of run_keys are never deleted), so the cache is valid across
// processes; keys of a transaction that rolled back are never learned.
type keyCache struct {
	mu sync.RWMutex
	m  map[string]int64
}

func (c *keyCache) get(runID string) (int64, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	key, ok := c.m[runID]
	return key, ok
}

func (c *keyCache) learn(keys runKeys) {
	if len(keys) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]int64, len(keys))
	}
	for id, key := range keys {
		c.m[id] = key
	}
}

// runKeySQL returns the key of a run ID, creating it if it is new. It is
// prepared once (statements): every new run runs it, and preparing it
// each time was about 14 µs of CPU per run.
const runKeySQL = "INSERT INTO run_keys (id) VALUES (?) ON CONFLICT (id) DO UPDATE SET id = excluded.id RETURNING pk"

// runKeysPerStatement is how many run IDs runKeysSQL takes. A batch of many
// short runs has as many new IDs: one statement for each, through
// database/sql, was about 7 µs of CPU per run, most of it not SQLite's.
const runKeysPerStatement = 32

// runKeysSQL is runKeySQL for runKeysPerStatement distinct IDs at once.
var runKeysSQL = "INSERT INTO run_keys (id) VALUES (?)" + strings.Repeat(", (?)", runKeysPerStatement-1) +
	" ON CONFLICT (id) DO UPDATE SET id = excluded.id RETURNING id, pk"

// spanRunKeys puts the keys of the runs of spans that are neither in keys
// nor cached into keys, creating them in tx where they are new: in whole
// statements of runKeysPerStatement IDs, the rest one by one.
func (s *Store) spanRunKeys(ctx context.Context, tx *sql.Tx, keys runKeys, spans []trace.Span) error {
	var missing []any
	last := ""
	for _, x := range spans {
		if x.RunID == last {
			continue
		}
		last = x.RunID
		if _, ok := keys[last]; ok {
			continue
		}
		if _, ok := s.keys.get(last); ok {
			continue
		}
		keys[last] = 0 // pending; set below
		missing = append(missing, last)
	}
	for len(missing) >= runKeysPerStatement {
		if err := s.runKeyChunk(ctx, tx, keys, missing[:runKeysPerStatement]); err != nil {
			return err
		}
		missing = missing[runKeysPerStatement:]
	}
	for _, id := range missing {
		delete(keys, id.(string))
		if _, err := s.runKey(ctx, tx, keys, id.(string)); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) runKeyChunk(ctx context.Context, tx *sql.Tx, keys runKeys, ids []any) error {
	rows, err := tx.StmtContext(ctx, s.stmts.runKeys).QueryContext(ctx, ids...)
	if err != nil {
		return fmt.Errorf("run keys of %s..: %w", ids[0], err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id string
		var key int64
		if err := rows.Scan(&id, &key); err != nil {
			return fmt.Errorf("run keys of %s..: %w", ids[0], err)
		}
		keys[id] = key
		n++
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("run keys of %s..: %w", ids[0], err)
	}
	if n != len(ids) {
		return fmt.Errorf("run keys of %s..: %d keys for %d runs", ids[0], n, len(ids))
	}
	return nil
}

// runKey returns the key of runID, creating it in tx if it is new.
func (s *Store) runKey(ctx context.Context, tx *sql.Tx, keys runKeys, runID string) (int64, error) {
	if key, ok := keys[runID]; ok {
		return key, nil
	}
	if key, ok := s.keys.get(runID); ok {
		return key, nil
	}
	var key int64
	err := tx.StmtContext(ctx, s.stmts.runKey).QueryRowContext(ctx, runID).Scan(&key)
	if err != nil {
		return 0, fmt.Errorf("run key of %s: %w", runID, err)
	}
	keys[runID] = key
	return key, nil
}
