package diagram

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/goccy/go-graphviz"
)

// Box geometry in SVG user units (dot's points, 72 to the inch).
const (
	boxH     = 40
	boxMinW  = 110
	charW    = 7.6 // average advance of the 13px sans-serif label font
	boxPadX  = 26
	margin   = 10
	inch     = 72.0
	edgeFont = "11"
)

// engine is the Graphviz context, made on the first layout, not at start.
var engine = sync.OnceValues(func() (*graphviz.Graphviz, error) {
	return graphviz.New(context.Background())
})

// dotMu runs dot one layout at a time: the WASM module has one memory.
var dotMu sync.Mutex

// runDot lays g out. Panics inside the binding become errors, so a bad
// graph fails one page, not the server.
func runDot(ctx context.Context, g Graph) (d Drawing, err error) {
	gv, err := engine()
	if err != nil {
		return Drawing{}, fmt.Errorf("diagram: start graphviz: %w", err)
	}
	dotMu.Lock()
	defer dotMu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("diagram: graphviz: %v", r)
		}
	}()
	graph, err := gv.Graph()
	if err != nil {
		return Drawing{}, fmt.Errorf("diagram: new graph: %w", err)
	}
	defer graph.Close()
	nodes, edges, err := build(graph, g)
	if err != nil {
		return Drawing{}, fmt.Errorf("diagram: build graph: %w", err)
	}
	if err := gv.Render(ctx, graph, graphviz.XDOT, io.Discard); err != nil {
		return Drawing{}, fmt.Errorf("diagram: dot: %w", err)
	}
	return read(g, graph, nodes, edges)
}

// build copies g into a Graphviz graph. Boxes have a fixed size computed
// here and no dot label, so dot needs no fonts; the SVG draws the text.
func build(graph *graphviz.Graph, g Graph) ([]*graphviz.Node, []*graphviz.Edge, error) {
	rankdir := "LR"
	if g.TopDown {
		rankdir = "TB"
	}
	for _, kv := range [][3]string{{"rankdir", rankdir, "TB"}, {"nodesep", "0.3", "0.25"}, {"ranksep", "0.7", "0.5"}, {"splines", "true", ""}} {
		if err := graph.SafeSet(kv[0], kv[1], kv[2]); err != nil {
			return nil, nil, err
		}
	}
	byID := make(map[string]*graphviz.Node, len(g.Nodes))
	nodes := make([]*graphviz.Node, len(g.Nodes))
	for i, n := range g.Nodes {
		gn, err := graph.CreateNodeByName(n.ID)
		if err != nil {
			return nil, nil, err
		}
		attrs := [][3]string{{"shape", "box", "ellipse"}, {"fixedsize", "true", "false"}, {"label", "", `\N`},
			{"width", ftoa(boxWidth(n) / inch), "0.75"}, {"height", ftoa(boxH / inch), "0.5"}}
		for _, kv := range attrs {
			if err := gn.SafeSet(kv[0], kv[1], kv[2]); err != nil {
				return nil, nil, err
			}
		}
		byID[n.ID], nodes[i] = gn, gn
	}
	edges := make([]*graphviz.Edge, len(g.Edges))
	for i, e := range g.Edges {
		ge, err := graph.CreateEdgeByName("e"+strconv.Itoa(i), byID[e.From], byID[e.To])
		if err != nil {
			return nil, nil, err
		}
		if e.Label != "" {
			for _, kv := range [][3]string{{"label", e.Label, ""}, {"fontsize", edgeFont, "14"}, {"fontname", "Helvetica", "Times-Roman"}} {
				if err := ge.SafeSet(kv[0], kv[1], kv[2]); err != nil {
					return nil, nil, err
				}
			}
		}
		edges[i] = ge
	}
	return nodes, edges, nil
}

// boxWidth fits the label, cut to MaxLabel, in one line.
func boxWidth(n Node) float64 {
	return max(boxMinW, float64(len([]rune(label(n.Label))))*charW+boxPadX)
}

// read takes the positions dot wrote back as attributes, turning dot's
// y-up points into SVG's y-down user units with a margin around.
func read(g Graph, graph *graphviz.Graph, nodes []*graphviz.Node, edges []*graphviz.Edge) (Drawing, error) {
	bb, err := floats(graph.GetStr("bb"))
	if err != nil || len(bb) != 4 {
		return Drawing{}, fmt.Errorf("diagram: dot gave bounding box %q", graph.GetStr("bb"))
	}
	h := bb[3] + 2*margin
	at := func(x, y float64) Point { return Point{X: x + margin, Y: h - margin - y} }
	d := Drawing{ID: g.ID, Title: g.Title, Width: bb[2] + 2*margin, Height: h}
	for i, n := range g.Nodes {
		c, err := floats(nodes[i].GetStr("pos"))
		if err != nil || len(c) != 2 {
			return Drawing{}, fmt.Errorf("diagram: dot gave node %q position %q", n.ID, nodes[i].GetStr("pos"))
		}
		n.Label = label(n.Label)
		w := boxWidth(n)
		p := at(c[0], c[1])
		d.Nodes = append(d.Nodes, PlacedNode{Node: n, X: p.X - w/2, Y: p.Y - boxH/2, W: w, H: boxH})
	}
	for i, e := range g.Edges {
		pe, err := curve(edges[i].GetStr("pos"), at)
		if err != nil {
			return Drawing{}, fmt.Errorf("diagram: edge %s→%s: %w", e.From, e.To, err)
		}
		pe.Edge = e
		if lp, err := floats(edges[i].GetStr("lp")); err == nil && len(lp) == 2 {
			pe.LabelAt = at(lp[0], lp[1])
		}
		d.Edges = append(d.Edges, pe)
	}
	return d, nil
}

// curve parses an edge's pos: "e,X,Y" (the arrow tip), an optional
// "s,X,Y", then 3n+1 spline points.
func curve(pos string, at func(x, y float64) Point) (PlacedEdge, error) {
	var pe PlacedEdge
	hasTip := false
	for _, f := range strings.Fields(pos) {
		kind := ""
		if strings.HasPrefix(f, "e,") || strings.HasPrefix(f, "s,") {
			kind, f = f[:1], f[2:]
		}
		xy, err := floats(f)
		if err != nil || len(xy) != 2 {
			return pe, fmt.Errorf("dot gave spline %q", pos)
		}
		switch kind {
		case "e":
			pe.Tip, hasTip = at(xy[0], xy[1]), true
		case "s": // an arrow at the start; digraph edges have none
		default:
			pe.Curve = append(pe.Curve, at(xy[0], xy[1]))
		}
	}
	if len(pe.Curve) < 4 || (len(pe.Curve)-1)%3 != 0 {
		return pe, fmt.Errorf("dot gave spline %q", pos)
	}
	if !hasTip {
		pe.Tip = pe.Curve[len(pe.Curve)-1]
	}
	return pe, nil
}

// floats parses "1,2.5,3" (dot's point and box syntax).
func floats(s string) ([]float64, error) {
	parts := strings.Split(s, ",")
	out := make([]float64, len(parts))
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSuffix(p, "!"), 64)
		if err != nil {
			return nil, err
		}
		out[i] = f
	}
	return out, nil
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 4, 64) }
