package delegation

import (
	"fmt"
	"slices"
	"sync"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
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

// toolset is what an invocation may use, worked out from its branch (the
// agents from the root to it): permission chain, tools, the tool list the
// model is offered, the delegation offer, and the decisions for the trace.
// It is shared by every invocation on the same branch and read-only.
type toolset struct {
	parent *toolset
	agent  agentShape // what of the agent it was worked out from
	branch []permissions.Agent
	chain  []permissions.Level

	tools     map[string]tool.Tool // effective tools by name
	specs     []model.Tool         // offered to the model, sorted by name
	decisions decisions
	// The invoke_agent span's name and attributes that come from here, made
	// once: a slice or struct put in an attribute map is a new allocation.
	spanName               string
	namesAttr, permissions any
	mayDelegate            permissions.Decision
	offer                  *offer
	hidden                 bool       // orchestrator: its tools only reachable through dispatch
	hasAsk                 bool       // the chain has ask patterns (approval.go)
	skills                 skillCache // what of the run's skills it may use (skills_offer.go)
}

// agentShape is the part of an agent its toolset depends on.
type agentShape struct {
	perm                   permissions.Agent
	tools, skills          permissions.Rules
	dispatch, orchestrator bool
}

func shapeOf(a *registry.Agent) agentShape {
	return agentShape{perm: a.Permissions(), tools: a.Tools, skills: a.Skills, dispatch: a.Subagents.Dispatch, orchestrator: a.Orchestrator}
}

// of reports whether a has this shape.
func (s *agentShape) of(a *registry.Agent) bool {
	p := a.Permissions()
	return s.perm.Name == p.Name && s.perm.Nested == p.Nested && s.perm.Enabled == p.Enabled &&
		s.dispatch == a.Subagents.Dispatch && s.orchestrator == a.Orchestrator &&
		sameRules(s.perm.Subagents, p.Subagents) && sameRules(s.tools, a.Tools) && sameRules(s.skills, a.Skills) &&
		sameLimit(s.perm.ToolLimit, p.ToolLimit)
}

// sameLimit compares what two agents' tool lists say of delegating: an
// edit of disallowedTools: Task alone changes whom the agent may call.
func sameLimit(a, b permissions.ToolLimit) bool {
	return a.All == b.All && a.Refused == b.Refused && sameList(a.Deny, b.Deny) && sameList(a.Only, b.Only)
}

func sameRules(a, b permissions.Rules) bool {
	return sameList(a.Allow, b.Allow) && sameList(a.Deny, b.Deny) && sameList(a.Ask, b.Ask)
}

// sameList tells nil from empty: an empty allow list allows nothing.
func sameList(a, b []string) bool { return (a == nil) == (b == nil) && slices.Equal(a, b) }

// toolsetCache keeps the toolsets of the latest snapshot by parent toolset
// and agent name. A toolset depends only on the snapshot's agents, the
// branch and the runtime's fixed tools and policy, so invocations on a
// branch need not decide every tool and target, sort the offer and build
// the delegate tool again: that was most of the set-up of an invocation.
// A hit is used only when the agent is the same as the toolset's (a
// dispatched agent is made up by its orchestrator), and the cache stops
// growing at maxToolsets. A new snapshot empties it.
type toolsetCache struct {
	mu   sync.Mutex
	snap agentSet
	m    map[toolsetKey]*toolset
}

type toolsetKey struct {
	parent *toolset
	name   string
}

const maxToolsets = 4096

// get returns the toolset of agent a under parent in snap, working it out
// with make on a miss.
func (c *toolsetCache) get(snap agentSet, parent *toolset, a *registry.Agent, make func() *toolset) *toolset {
	key := toolsetKey{parent, a.Name}
	c.mu.Lock()
	if c.snap == snap {
		if ts, ok := c.m[key]; ok && ts.agent.of(a) {
			c.mu.Unlock()
			return ts
		}
	}
	c.mu.Unlock()
	return c.add(snap, key, a, make)
}

// add works out and keeps a toolset get did not find.
func (c *toolsetCache) add(snap agentSet, key toolsetKey, a *registry.Agent, make func() *toolset) *toolset {
	ts := make()
	ts.parent, ts.agent = key.parent, shapeOf(a)
	c.mu.Lock()
	if c.snap != snap {
		c.snap, c.m = snap, map[toolsetKey]*toolset{}
	}
	if len(c.m) < maxToolsets || c.m[key] != nil {
		c.m[key] = ts
	}
	c.mu.Unlock()
	return ts
}

// callerSets keeps one toolset per distinct Request.Tools: the levels above
// a root agent (global, then the caller's), with no agent of its own. A
// root invocation under it is worked out as a child of it, so its chain
// is global, caller, agent and the toolset cache keys it apart from the
// same agent's runs without a caller level.
type callerSets struct {
	mu sync.Mutex
	m  map[string]*toolset
}

// maxCallerSets bounds callerSets: Request.Tools comes from configuration,
// so a few distinct values are expected; past the bound the sets are
// worked out anew, not kept.
const maxCallerSets = 64

// callerSet returns the toolset of the global and caller levels.
func (r *Runtime) callerSet(caller permissions.Rules) *toolset {
	key := fmt.Sprintf("%q|%q|%q|%t|%t|%t", caller.Allow, caller.Deny, caller.Ask, caller.Allow == nil, caller.Deny == nil, caller.Ask == nil)
	c := &r.callers
	c.mu.Lock()
	defer c.mu.Unlock()
	if ts, ok := c.m[key]; ok {
		return ts
	}
	ts := &toolset{chain: []permissions.Level{{Name: permissions.GlobalLevel, Rules: r.cfg.GlobalTools}, {Name: CallerLevel, Rules: caller}}}
	if c.m == nil {
		c.m = map[string]*toolset{}
	}
	if len(c.m) < maxCallerSets {
		c.m[key] = ts
	}
	return ts
}
