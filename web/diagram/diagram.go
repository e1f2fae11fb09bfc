package diagram

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Limits past which Layout refuses a graph: dot's time grows faster than the
// graph, and a picture of more boxes than this is no longer read, only
// scrolled. Pages show their list view instead.
const (
	MaxNodes = 150
	MaxEdges = 400
)

// ErrTooLarge is returned by Layout for a graph over MaxNodes or MaxEdges.
var ErrTooLarge = errors.New("diagram: graph too large to draw")

// Graph is what to draw. Its fields are the whole cache key: two equal
// Graphs get the same Drawing without running dot again.
type Graph struct {
	ID      string // data-testid of the <svg> and prefix of its marker ids; "diagram" when empty
	Title   string // the picture's accessible name (aria-label)
	TopDown bool   // ranks run top to bottom; the default is left to right
	Nodes   []Node
	Edges   []Edge
}

// Node is one box. IDs must be unique within a Graph.
type Node struct {
	ID    string // names the node in edges and in data-testid="node-ID"
	Label string // drawn in the box, escaped; cut to MaxLabel runes (Title keeps all)
	Title string // tooltip
	Href  string // when set, the box is a link
	Class string // extra CSS classes, space separated ("disabled broken")
}

// Edge is one arrow between two nodes of the same Graph.
type Edge struct {
	From, To string
	Kind     string // a CSS class on the line and its arrowhead ("denied"); the site's CSS colours it
	Label    string // optional text dot places beside the line
	Title    string // tooltip
}

// MaxLabel is the longest box label drawn; longer ones end in "…".
const MaxLabel = 32

// Point is a position in SVG user units, y growing downwards.
type Point struct{ X, Y float64 }

// Drawing is a laid-out Graph. It is shared through the cache: treat it
// as read-only.
type Drawing struct {
	ID, Title     string
	Width, Height float64
	Nodes         []PlacedNode
	Edges         []PlacedEdge
}

// PlacedNode is a Node and its box; X, Y is the top-left corner.
type PlacedNode struct {
	Node
	X, Y, W, H float64
}

// PlacedEdge is an Edge and its curve: Curve[0] is the start, then each
// three points are one cubic Bézier segment; the arrow runs from the last
// point to Tip, on the target's border.
type PlacedEdge struct {
	Edge
	Curve   []Point
	Tip     Point
	LabelAt Point // centre of Label, when there is one
}

// Layout places g's nodes and routes its edges with Graphviz dot. Edges are
// splines that go around boxes, not through them. The first call in a
// process starts the engine; calls run one at a time; a Graph laid out
// before is answered from a small cache. It returns ErrTooLarge for graphs
// over the limits, and an error naming the node for a duplicate or unknown
// node ID.
func Layout(ctx context.Context, g Graph) (Drawing, error) {
	if len(g.Nodes) > MaxNodes || len(g.Edges) > MaxEdges {
		return Drawing{}, fmt.Errorf("%w: %d nodes, %d edges (at most %d and %d)", ErrTooLarge, len(g.Nodes), len(g.Edges), MaxNodes, MaxEdges)
	}
	if err := check(g); err != nil {
		return Drawing{}, err
	}
	if g.ID == "" {
		g.ID = "diagram"
	}
	if len(g.Nodes) == 0 {
		return Drawing{ID: g.ID, Title: g.Title}, nil
	}
	return layouts.get(ctx, g)
}

// check rejects what dot would silently draw wrong: two nodes with one ID
// (merged into one box) and edges to nodes that do not exist (invented).
func check(g Graph) error {
	seen := make(map[string]bool, len(g.Nodes))
	for _, n := range g.Nodes {
		if seen[n.ID] {
			return fmt.Errorf("diagram: node %q appears twice", n.ID)
		}
		seen[n.ID] = true
	}
	for _, e := range g.Edges {
		for _, id := range []string{e.From, e.To} {
			if !seen[id] {
				return fmt.Errorf("diagram: edge %s→%s names unknown node %q", e.From, e.To, id)
			}
		}
	}
	return nil
}

// label cuts s to MaxLabel runes.
func label(s string) string {
	r := []rune(s)
	if len(r) <= MaxLabel {
		return s
	}
	return string(r[:MaxLabel-1]) + "…"
}

// Path is the edge as SVG path data: the spline, then a straight piece to
// the tip, where the arrowhead marker sits.
func (e PlacedEdge) Path() string {
	var b strings.Builder
	for i, p := range e.Curve {
		switch {
		case i == 0:
			b.WriteString("M")
		case i%3 == 1:
			b.WriteString(" C")
		default:
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s %s", num(p.X), num(p.Y))
	}
	fmt.Fprintf(&b, " L%s %s", num(e.Tip.X), num(e.Tip.Y))
	return b.String()
}

// num writes a coordinate with at most two decimals, enough for a screen.
func num(f float64) string {
	s := fmt.Sprintf("%.2f", f)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}
