package agents

import (
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
)

// layout places agents in columns: column 0 holds agents no edge reaches (and, when every agent is on a cycle, the first by name), and each
// next column the targets first reached from the one before. Within a column
// agents keep name order, so the picture is stable between reloads.
func layout(snap *registry.Snapshot, agents []registry.Agent, edges []GraphEdge, d permissions.Delegation) GraphView {
	col := columns(agents, edges)
	perCol := map[int]int{}
	nodes := make(map[string]GraphNode, len(agents))
	v := GraphView{}
	for _, a := range agents {
		c := col[a.Name]
		n := GraphNode{Name: a.Name, Label: truncate(a.Name, labelMax), Title: a.Name + ": " + a.Description,
			Href: agentHref(a.Name), Class: "node", X: margin + c*(nodeW+colGap), Y: margin + perCol[c]*(nodeH+rowGap), W: nodeW, H: nodeH}
		perCol[c]++
		if disabledIn(a, d) {
			n.Class += " disabled"
		}
		if f, ok := snap.File(a.File); ok && fileStatus(f.Problems) == statusBroken {
			n.Class += " broken"
		}
		nodes[a.Name] = n
		v.Nodes = append(v.Nodes, n)
		v.Width = max(v.Width, n.X+n.W+margin)
		v.Height = max(v.Height, n.Y+n.H+margin)
	}
	rows := make(map[string]*GraphRow, len(agents))
	for _, n := range v.Nodes {
		rows[n.Name] = &GraphRow{Name: n.Name, Href: n.Href}
	}
	for _, e := range edges {
		e.Path = edgePath(nodes[e.From], nodes[e.To])
		v.Edges = append(v.Edges, e)
		if r := rows[e.From]; e.Kind == edgeAllowed {
			r.Allowed = append(r.Allowed, e)
		} else {
			r.Blocked = append(r.Blocked, e)
		}
	}
	for _, a := range agents {
		r := rows[a.Name]
		r.Disabled = disabledIn(a, d)
		v.Rows = append(v.Rows, *r)
	}
	return v
}

// columns assigns each agent the length of the longest edge path that reaches
// it, so every edge points right: a target reached both directly and through
// another agent sits after that agent, not beside it, and no edge runs inside
// a column through the boxes. Edges that close a cycle are left out of the
// ranking (they are still drawn, looping back). Denied edges count too.
func columns(agents []registry.Agent, edges []GraphEdge) map[string]int {
	out := make(map[string][]string, len(agents))
	reached := make(map[string]bool, len(agents))
	for _, e := range edges {
		out[e.From] = append(out[e.From], e.To)
		reached[e.To] = true
	}
	const onStack, done = 1, 2
	state := make(map[string]int, len(agents))
	forward := make(map[string][]string, len(agents))
	var postorder []string
	var visit func(name string)
	visit = func(name string) {
		state[name] = onStack
		for _, t := range out[name] {
			if state[t] == onStack {
				continue // closes a cycle
			}
			forward[name] = append(forward[name], t)
			if state[t] == 0 {
				visit(t)
			}
		}
		state[name] = done
		postorder = append(postorder, name)
	}
	for _, rootsOnly := range []bool{true, false} { // roots first; then cycles nobody enters, by name
		for _, a := range agents {
			if state[a.Name] == 0 && (!rootsOnly || !reached[a.Name]) {
				visit(a.Name)
			}
		}
	}
	col := make(map[string]int, len(agents))
	for i := len(postorder) - 1; i >= 0; i-- { // reverse postorder is a topological order
		from := postorder[i]
		for _, to := range forward[from] {
			col[to] = max(col[to], col[from]+1)
		}
	}
	return col
}
