package agents

import (
	"context"
	"errors"
	"log/slog"

	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"

	"github.com/agentry/agentry/web/diagram"
)

// describe turns the decided edges into the graph to draw and the list
// rows, agents in name order, then the remote agents. Disabled, broken and
// remote agents carry CSS classes.
func describe(snap *registry.Snapshot, agents []registry.Agent, remote []registry.RemoteTarget, edges []GraphEdge, d permissions.Delegation) GraphView {
	v := GraphView{Empty: len(agents) == 0}
	g := diagram.Graph{ID: "graph", Title: "Delegation graph"}
	rows := make(map[string]*GraphRow, len(agents))
	for _, a := range agents {
		n := diagram.Node{ID: a.Name, Label: a.Name, Title: a.Name + ": " + a.Description, Href: agentHref(a.Name)}
		if disabledIn(a, d) {
			n.Class = "disabled"
		}
		if f, ok := snap.File(a.File); ok && fileStatus(f.Problems) == statusBroken {
			n.Class += " broken"
		}
		g.Nodes = append(g.Nodes, n)
		rows[a.Name] = &GraphRow{Name: a.Name, Href: n.Href, Disabled: disabledIn(a, d)}
	}
	for _, r := range remote { // no link: its page is on its own server
		n := diagram.Node{ID: r.Agent.Name, Label: "⇄ " + r.Agent.Name, Class: "remote",
			Title: r.Agent.Name + ": " + r.Description + " (remote A2A agent, card " + r.Card + ")"}
		if !d.Runnable(r.Agent).Allowed {
			n.Class += " disabled"
		}
		g.Nodes = append(g.Nodes, n)
		rows[r.Agent.Name] = &GraphRow{Name: r.Agent.Name, Remote: r.Card, Disabled: !d.Runnable(r.Agent).Allowed}
	}
	for _, e := range edges {
		g.Edges = append(g.Edges, diagram.Edge{From: e.From, To: e.To, Kind: e.Kind, Title: e.From + " → " + e.To + ": " + e.Reason})
		if r := rows[e.From]; e.Kind == edgeAllowed {
			r.Allowed = append(r.Allowed, e)
		} else {
			r.Blocked = append(r.Blocked, e)
		}
	}
	for _, a := range agents {
		v.Rows = append(v.Rows, *rows[a.Name])
	}
	for _, r := range remote {
		v.Rows = append(v.Rows, *rows[r.Agent.Name])
	}
	v.Remote = len(remote) > 0
	v.graph = g
	return v
}

// draw lays the graph out with dot. A graph too large to read, or a layout
// that fails, leaves the list alone on the page, with a note saying why.
func draw(ctx context.Context, v *GraphView, log *slog.Logger) {
	if v.Empty {
		return
	}
	d, err := diagram.Layout(ctx, v.graph)
	switch {
	case errors.Is(err, diagram.ErrTooLarge):
		v.Note = "The graph has too many agents or edges to draw readably; here it is as a list."
	case err != nil:
		log.Error("draw delegation graph", "err", err)
		v.Note = "The graph could not be drawn; here it is as a list."
	default:
		v.Drawing = &d
	}
}
