package agents

import (
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"

	"github.com/agentry/agentry/web/core"
	"github.com/agentry/agentry/web/diagram"
)

// GraphView is the delegation graph: the drawing, when there is one, and
// the same facts as a list, for reading and screen readers.
type GraphView struct {
	Empty   bool
	Drawing *diagram.Drawing // nil when the graph is too large or dot failed
	Note    string           // why there is no drawing
	Rows    []GraphRow
	Remote  bool // some targets run elsewhere (a2a: in agentry.yaml)

	graph diagram.Graph // what draw lays out
}

// GraphEdge is one arrow from a delegator to a target.
type GraphEdge struct {
	From, To string
	Kind     string // edgeAllowed, edgeDenied or edgeDisabled
	Reason   string
	Remote   string // the target's A2A card URL when it runs elsewhere
}

// GraphRow lists one agent's outgoing edges; a remote agent has none here.
type GraphRow struct {
	Name, Href       string
	Disabled         bool
	Remote           string // its A2A card URL when it runs elsewhere
	Allowed, Blocked []GraphEdge
}

// Edge kinds: allowed; denied by a deny pattern; allowed by the rules but the
// target is disabled. They are CSS classes of the drawn edges.
const (
	edgeAllowed  = "allowed"
	edgeDenied   = "denied"
	edgeDisabled = "to-disabled"
)

// Graph renders the delegation graph page.
func (s *Pages) Graph(c echo.Context) error {
	v := graphView(s.cfg.Agents.Snapshot(), s.cfg.Delegation, s.cfg.Remote)
	draw(c.Request().Context(), &v, s.log)
	return core.Render(c, http.StatusOK, GraphPage(core.Page(c, "Delegation graph", "/graph"), v))
}

// graphView decides, as the runtime would for a root delegator, every pair
// of agents where the delegator's patterns name the target: the files'
// agents, and the remote agents no file shadows as targets only. Deciding
// only named pairs keeps 1,000 agents fast.
func graphView(snap *registry.Snapshot, d permissions.Delegation, remote []registry.RemoteTarget) GraphView {
	agents := snap.Agents()
	perms, cards := snap.DelegationTargets(remote)
	byName := make(map[string]permissions.Agent, len(perms))
	for _, p := range perms {
		byName[p.Name] = p
	}
	rulesOnly := permissions.Delegation{MaxDepth: d.MaxDepth}
	var edges []GraphEdge
	for _, from := range perms[:len(agents)] {
		branch := []permissions.Agent{from}
		for _, to := range perms {
			if to.Name == from.Name || !mentions(from.Subagents, to.Name) {
				continue // no pattern names it: no edge, and no need to decide
			}
			if e, ok := edgeFor(from, d.Target(branch, to), rulesOnly, byName); ok {
				e.Remote = cards[e.To]
				edges = append(edges, e)
			}
		}
	}
	return describe(snap, agents, snap.RemoteTargets(remote), edges, d)
}

// edgeFor turns a decision into an edge, or none when the target is simply
// not in the delegator's allow list.
func edgeFor(from permissions.Agent, dec permissions.Decision, rulesOnly permissions.Delegation, all map[string]permissions.Agent) (GraphEdge, bool) {
	e := GraphEdge{From: from.Name, To: dec.Subject, Reason: dec.Reason}
	switch {
	case dec.Allowed:
		e.Kind = edgeAllowed
	case dec.Level == from.Name && dec.Pattern != "":
		e.Kind = edgeDenied
	default:
		target, ok := all[dec.Subject]
		if !ok {
			return e, false
		}
		target.Enabled = true
		if !rulesOnly.Target([]permissions.Agent{from}, target).Allowed {
			return e, false
		}
		e.Kind = edgeDisabled
	}
	return e, true
}

// mentions reports whether an allow or deny pattern of r matches name; only
// then can a decision about name become an edge.
func mentions(r permissions.Rules, name string) bool {
	return slices.ContainsFunc(r.Allow, func(p string) bool { return permissions.Match(p, name) }) ||
		slices.ContainsFunc(r.Deny, func(p string) bool { return permissions.Match(p, name) })
}

// disabledIn reports whether an agent is switched off, in its file or globally.
func disabledIn(a registry.Agent, d permissions.Delegation) bool {
	if !a.Enabled {
		return true
	}
	return slices.ContainsFunc(d.Disabled, func(p string) bool { return permissions.Match(p, a.Name) })
}
