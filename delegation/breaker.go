package delegation

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/agentry/agentry/registry"
)

// Circuit states, the values of AttrCircuit.
const (
	CircuitClosed   = "closed"
	CircuitOpen     = "open"
	CircuitHalfOpen = "half_open"
)

// AttrCircuit is the state of the tool's circuit breaker when the call was
// made, on its execute_tool span; AttrCircuitServer is that of its MCP
// server's, for MCP tools.
const (
	AttrCircuit       = "circuit"
	AttrCircuitServer = "circuit_server"
)

// breaker is one circuit: closed until failures consecutive failures, then
// open (every call answered at once with a circuit error) until cooldown
// has passed, then half-open: one trial call, whose success closes it and
// whose failure opens it again.
type breaker struct {
	fails    int
	openedAt time.Time
	trial    bool // a half-open trial call is in flight
}

// breakers are the runtime's circuits, one per tool and one per MCP server
// (a tool group that is not built in), shared by every run of the
// Runtime: a failing server fails for everyone.
type breakers struct {
	mu sync.Mutex
	m  map[string]*breaker
}

// builtinGroups are the tool groups agentry ships; any other group is an
// MCP server.
var builtinGroups = func() map[string]bool {
	g := map[string]bool{}
	for _, n := range registry.BuiltinTools {
		grp, _, _ := strings.Cut(n, ".")
		g[grp] = true
	}
	return g
}()

// circuitKeys are the circuits a call of tool passes through.
func circuitKeys(tool string) []string {
	keys := []string{tool}
	if grp, _, ok := strings.Cut(tool, "."); ok && !builtinGroups[grp] {
		keys = append(keys, "server:"+grp)
	}
	return keys
}

// admit decides a call of tool: the states it found (for the span) and,
// when a circuit is open, the error the model reads instead of a result.
func (b *breakers) admit(l Limits, tool string, now time.Time) (states []string, refused error) {
	if l.BreakerFailures <= 0 {
		return nil, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string]*breaker{}
	}
	for _, k := range circuitKeys(tool) {
		c := b.m[k]
		state := CircuitClosed
		if c != nil && c.fails >= l.BreakerFailures {
			state = CircuitOpen
			if wait := c.openedAt.Add(l.BreakerCooldown).Sub(now); wait <= 0 && !c.trial {
				state, c.trial = CircuitHalfOpen, true
			} else if refused == nil {
				what := "tool " + tool
				if k != tool {
					what = "MCP server " + strings.TrimPrefix(k, "server:")
				}
				refused = fmt.Errorf("circuit open for %s after %d consecutive failures; not called. Try again in %s or do without it",
					what, c.fails, max(wait, 0).Round(time.Second))
			}
		}
		states = append(states, state)
	}
	return states, refused
}

// record counts a call's outcome on its circuits.
func (b *breakers) record(l Limits, tool string, failed bool, now time.Time) {
	if l.BreakerFailures <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, k := range circuitKeys(tool) {
		c := b.m[k]
		if c == nil {
			c = &breaker{}
			b.m[k] = c
		}
		c.trial = false
		if !failed {
			c.fails = 0
			continue
		}
		c.fails++
		if c.fails >= l.BreakerFailures {
			c.openedAt = now
		}
	}
}
