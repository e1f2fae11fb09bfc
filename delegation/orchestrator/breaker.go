package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentry/agentry/delegation/tool"
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
	lastFail time.Time
	trial    bool // a half-open trial call is in flight
}

// Breakers are the runtime's circuits, one per tool and one per MCP server
// (a tool group that is not built in) in each conversation. A breaker
// protects against a failing dependency, so it counts only failures of
// what the tool depends on (DependencyFailed); and it is a conversation's,
// so one conversation's failures never close a tool for the others. A
// server that is down for everyone is found so by each conversation after
// BreakerFailures calls, a price paid so that one conversation's slow or
// broken calls cannot shut a tool for everybody.
type Breakers struct {
	mu      sync.Mutex
	m       map[circuitKey]*breaker // only circuits with failures: a closed one has no state
	sweepAt int
}

// circuitKey names one circuit: a tool's or an MCP server's ("server:NAME")
// in a conversation.
type circuitKey struct{ conversation, circuit string }

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

// Admit decides a call of tool in conversation conv: the states it found
// (for the span) and, when a circuit is open, the error the model reads
// instead of a result.
func (b *Breakers) Admit(l Limits, conv, tool string, now time.Time) (states []string, refused error) {
	if l.BreakerFailures <= 0 {
		return nil, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, k := range circuitKeys(tool) {
		c := b.m[circuitKey{conv, k}]
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
				refused = fmt.Errorf("circuit open for %s after %d consecutive failures of what it depends on; not called. Try again in %s or do without it",
					what, c.fails, max(wait, 0).Round(time.Second))
			}
		}
		states = append(states, state)
	}
	return states, refused
}

// Record counts a call's outcome on its circuits in conversation conv:
// failed says the tool's dependency failed, not the call.
func (b *Breakers) Record(l Limits, conv, tool string, failed bool, now time.Time) {
	if l.BreakerFailures <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, k := range circuitKeys(tool) {
		key := circuitKey{conv, k}
		c := b.m[key]
		if !failed {
			delete(b.m, key) // closed, with no failures to remember
			continue
		}
		if c == nil {
			if b.m == nil {
				b.m = map[circuitKey]*breaker{}
			}
			if len(b.m) >= max(b.sweepAt, minSweep) {
				b.sweep(l, now)
			}
			c = &breaker{}
			b.m[key] = c
		}
		c.trial = false
		c.fails++
		c.lastFail = now
		if c.fails >= l.BreakerFailures {
			c.openedAt = now
		}
	}
}

// sweep forgets the circuits whose last failure is more than two cooldowns
// old (an open one would have half-opened long since); b.mu is held.
func (b *Breakers) sweep(l Limits, now time.Time) {
	for k, c := range b.m {
		if now.Sub(c.lastFail) > 2*max(l.BreakerCooldown, time.Second) {
			delete(b.m, k)
		}
	}
	b.sweepAt = 2 * len(b.m)
}

// DependencyFailed reports whether a tool call's error is a failure of what
// the tool depends on, which a breaker counts: a timeout, a connection that
// failed, or an error the tool marked tool.ErrUnavailable (an HTTP 5xx, an
// MCP server gone); the runtime counts a panic too. A missing file, bad
// arguments or a denial are the call's own, and the next call may well
// succeed.
func DependencyFailed(err error) bool {
	var oe *net.OpError // a dial, read or write on the network (syscall.Errno, which a missing file is, is a net.Error too)
	var de *net.DNSError
	var ne net.Error
	return errors.Is(err, tool.ErrUnavailable) || errors.Is(err, ErrToolTimeout) || errors.Is(err, context.DeadlineExceeded) ||
		errors.As(err, &oe) || errors.As(err, &de) || errors.As(err, &ne) && ne.Timeout() ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.ErrUnexpectedEOF)
}
