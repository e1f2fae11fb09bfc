package delegation

import (
	"strings"
	"sync"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/permissions"
)

// offer is what a delegator is offered: every target decision (for the
// trace) and the delegate tool built from the allowed ones.
type offer struct {
	decisions []permissions.Decision // shared and read-only once cached
	byName    map[string]permissions.Decision
	spec      model.Tool
	any       bool // at least one target is allowed
}

// decision returns the cached decision on target, which is what
// permissions.Delegation.Target would answer for this branch and snapshot.
func (o *offer) decision(target string) (permissions.Decision, bool) {
	if o == nil {
		return permissions.Decision{}, false
	}
	d, ok := o.byName[target]
	return d, ok
}

// offerCache keeps the offer for each branch (the agents from the root to
// the delegator) of the latest snapshot. The decisions depend only on the
// snapshot's agents, the branch and the runtime's fixed policy, so runs of
// the same agents need not decide and build the delegate tool again: it
// was a third of a small run's own CPU time. A new snapshot empties it.
type offerCache struct {
	mu   sync.Mutex
	snap agentSet
	m    map[string]*offer
}

// get returns the offer for branch in snap, computing it with decide on a
// miss.
func (c *offerCache) get(snap agentSet, branch []permissions.Agent, decide func() ([]permissions.Decision, []target)) *offer {
	key := branchKey(branch)
	c.mu.Lock()
	if c.snap == snap {
		if o, ok := c.m[key]; ok {
			c.mu.Unlock()
			return o
		}
	}
	c.mu.Unlock()
	decs, targets := decide()
	o := &offer{decisions: decs, byName: make(map[string]permissions.Decision, len(decs)), any: len(targets) > 0}
	for _, d := range decs {
		o.byName[d.Subject] = d
	}
	if o.any {
		o.spec = delegateSpec(targets)
	}
	c.mu.Lock()
	if c.snap != snap {
		c.snap, c.m = snap, map[string]*offer{}
	}
	c.m[key] = o
	c.mu.Unlock()
	return o
}

func branchKey(branch []permissions.Agent) string {
	var b strings.Builder
	for _, a := range branch {
		b.WriteString(a.Name)
		b.WriteByte(0)
	}
	return b.String()
}
