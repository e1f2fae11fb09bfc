package diagram

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// issueGraph is the graph the hand-written layout drew through boxes:
// a→d ran through b, a→e through b and c.
func issueGraph() Graph {
	g := Graph{ID: "graph", Title: "Delegation graph"}
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		g.Nodes = append(g.Nodes, Node{ID: id, Label: id, Href: "/agents/" + id})
	}
	for _, p := range []string{"a b", "a c", "a d denied", "a e", "b d", "c e"} {
		f := strings.Fields(p)
		e := Edge{From: f[0], To: f[1], Kind: "allowed"}
		if len(f) == 3 {
			e.Kind = f[2]
		}
		g.Edges = append(g.Edges, e)
	}
	return g
}

func TestNoEdgeEntersABoxOtherThanItsEnds(t *testing.T) {
	for name, g := range map[string]Graph{"the issue's graph": issueGraph(), "a chain of 30 with skips": chain(30), "top down": topDown(issueGraph()), "a loop back, a self loop and two labelled edges between one pair": loops()} {
		t.Run(name, func(t *testing.T) {
			d, err := Layout(context.Background(), g)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Nodes) != len(g.Nodes) || len(d.Edges) != len(g.Edges) {
				t.Fatalf("drew %d nodes and %d edges of %d and %d", len(d.Nodes), len(d.Edges), len(g.Nodes), len(g.Edges))
			}
			for _, hit := range crossings(d) {
				t.Error(hit)
			}
		})
	}
}

func TestEdgesStartAndEndOnTheirBoxes(t *testing.T) {
	d, err := Layout(context.Background(), issueGraph())
	if err != nil {
		t.Fatal(err)
	}
	box := map[string]PlacedNode{}
	for _, n := range d.Nodes {
		box[n.ID] = n
	}
	for _, e := range d.Edges {
		if !near(box[e.From], e.Curve[0], 2) || !near(box[e.To], e.Tip, 2) {
			t.Errorf("%s→%s runs from %v to %v, not from box %v to box %v", e.From, e.To, e.Curve[0], e.Tip, box[e.From], box[e.To])
		}
	}
}

func TestLayoutRefusesWhatItCannotDrawTruthfully(t *testing.T) {
	big := chain(MaxNodes + 1)
	if _, err := Layout(context.Background(), big); !errors.Is(err, ErrTooLarge) {
		t.Errorf("%d nodes: err = %v, want ErrTooLarge", len(big.Nodes), err)
	}
	dup := Graph{Nodes: []Node{{ID: "a"}, {ID: "a"}}}
	if _, err := Layout(context.Background(), dup); err == nil || !strings.Contains(err.Error(), `"a" appears twice`) {
		t.Errorf("duplicate node: err = %v", err)
	}
	dangling := Graph{Nodes: []Node{{ID: "a"}}, Edges: []Edge{{From: "a", To: "ghost"}}}
	if _, err := Layout(context.Background(), dangling); err == nil || !strings.Contains(err.Error(), `"ghost"`) {
		t.Errorf("edge to an unknown node: err = %v", err)
	}
}

func TestTheSameGraphIsLaidOutOnce(t *testing.T) {
	runs := 0
	c := newCache(2, func(ctx context.Context, g Graph) (Drawing, error) { runs++; return runDot(ctx, g) })
	ctx := context.Background()
	a, b, third := issueGraph(), chain(3), chain(4)
	for _, g := range []Graph{a, a, b, a, third, a, b} {
		if _, err := c.get(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	// a, b: 2 runs; a hit; third evicts b (least recently used); a hit; b again.
	if runs != 4 {
		t.Errorf("dot ran %d times, want 4", runs)
	}
	if c.entries.Len() != 2 {
		t.Errorf("cache holds %d layouts, want at most 2", c.entries.Len())
	}
	failing := newCache(2, func(context.Context, Graph) (Drawing, error) { return Drawing{}, errors.New("dot failed") })
	if _, err := failing.get(ctx, a); err == nil || failing.entries.Len() != 0 {
		t.Errorf("a failed layout: err %v, %d kept; want the error, nothing kept (it is retried)", err, failing.entries.Len())
	}
}

func TestSVGEscapesTextAndUsesClassesNotStyles(t *testing.T) {
	g := issueGraph()
	g.Nodes[0].Label = `<script>alert(1)</script>`
	g.Nodes[0].Title = `"quoted" & <b>`
	g.Nodes[1].Class = "disabled"
	g.Edges[0].Label = "<yes>"
	d, err := Layout(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := SVG(d).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, bad := range []string{"<script>", "<b>", "<yes>", "style=", "fill=\"#", "stroke=\"#"} {
		if strings.Contains(out, bad) {
			t.Errorf("SVG contains %q:\n%s", bad, out)
		}
	}
	for _, want := range []string{`class="node disabled" data-testid="node-b"`, `class="edge denied"`, `id="graph-arrow-denied"`, `url(#graph-arrow-denied)`, `&lt;yes&gt;`, `href="/agents/a"`} {
		if !strings.Contains(out, want) {
			t.Errorf("SVG lacks %q:\n%s", want, out)
		}
	}
}

// crossings samples every edge and names each box other than its ends that
// a sample falls inside (boxes shrunk by 1 unit, so touching is not entering).
func crossings(d Drawing) []string {
	var out []string
	for _, e := range d.Edges {
		hit := map[string]bool{}
		for _, p := range samples(e) {
			for _, n := range d.Nodes {
				if n.ID != e.From && n.ID != e.To && !hit[n.ID] &&
					p.X > n.X+1 && p.X < n.X+n.W-1 && p.Y > n.Y+1 && p.Y < n.Y+n.H-1 {
					hit[n.ID] = true
					out = append(out, fmt.Sprintf("%s→%s enters %s at (%.0f, %.0f)", e.From, e.To, n.ID, p.X, p.Y))
				}
			}
		}
	}
	return out
}

// samples walks each cubic segment of e in 64 steps, then the line to the tip.
func samples(e PlacedEdge) []Point {
	var out []Point
	for i := 0; i+3 < len(e.Curve); i += 3 {
		p0, p1, p2, p3 := e.Curve[i], e.Curve[i+1], e.Curve[i+2], e.Curve[i+3]
		for s := 0; s <= 64; s++ {
			t := float64(s) / 64
			u := 1 - t
			out = append(out, Point{
				X: u*u*u*p0.X + 3*u*u*t*p1.X + 3*u*t*t*p2.X + t*t*t*p3.X,
				Y: u*u*u*p0.Y + 3*u*u*t*p1.Y + 3*u*t*t*p2.Y + t*t*t*p3.Y,
			})
		}
	}
	last := e.Curve[len(e.Curve)-1]
	for s := 0; s <= 16; s++ {
		t := float64(s) / 16
		out = append(out, Point{X: last.X + t*(e.Tip.X-last.X), Y: last.Y + t*(e.Tip.Y-last.Y)})
	}
	return out
}

// near reports whether p lies within tol of n's border.
func near(n PlacedNode, p Point, tol float64) bool {
	inOuter := p.X >= n.X-tol && p.X <= n.X+n.W+tol && p.Y >= n.Y-tol && p.Y <= n.Y+n.H+tol
	inInner := p.X > n.X+tol && p.X < n.X+n.W-tol && p.Y > n.Y+tol && p.Y < n.Y+n.H-tol
	return inOuter && !inInner
}

// chain is n agents, each calling the next two, and the first calling the
// last: long edges that must pass a column of boxes.
func chain(n int) Graph {
	var g Graph
	for i := range n {
		g.Nodes = append(g.Nodes, Node{ID: fmt.Sprintf("agent-%03d", i), Label: fmt.Sprintf("agent-%03d", i)})
	}
	for i := range n {
		for _, j := range []int{i + 1, i + 2} {
			if j < n {
				g.Edges = append(g.Edges, Edge{From: g.Nodes[i].ID, To: g.Nodes[j].ID})
			}
		}
	}
	if n > 2 {
		g.Edges = append(g.Edges, Edge{From: g.Nodes[0].ID, To: g.Nodes[n-1].ID, Kind: "denied"})
	}
	return g
}

func topDown(g Graph) Graph {
	g.TopDown = true
	return g
}

func TestCrossingsSeesALineThroughABox(t *testing.T) {
	d := Drawing{
		Nodes: []PlacedNode{{Node: Node{ID: "a"}, X: 0, Y: 0, W: 10, H: 10}, {Node: Node{ID: "b"}, X: 20, Y: 0, W: 10, H: 10}, {Node: Node{ID: "c"}, X: 40, Y: 0, W: 10, H: 10}},
		Edges: []PlacedEdge{{Edge: Edge{From: "a", To: "c"}, Curve: []Point{{10, 5}, {20, 5}, {30, 5}, {38, 5}}, Tip: Point{40, 5}}},
	}
	if got := crossings(d); len(got) != 1 || !strings.Contains(got[0], "a→c enters b") {
		t.Errorf("crossings = %v, want a→c entering b", got)
	}
}

func TestConcurrentLayoutsAgreeWithOneAtATime(t *testing.T) {
	want, err := runDot(context.Background(), chain(12))
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			g := chain(12)
			if i%2 == 1 {
				g = chain(5 + i) // other graphs in between, to interleave with dot runs
			}
			d, err := Layout(context.Background(), g)
			if err == nil && i%2 == 0 && d.Edges[0].Path() != want.Edges[0].Path() {
				err = fmt.Errorf("edge path %q, alone it is %q", d.Edges[0].Path(), want.Edges[0].Path())
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// loops is a workflow-like graph: a step that repeats, a validator that
// sends work back, and two labelled edges between the same pair.
func loops() Graph {
	g := Graph{TopDown: true}
	for _, id := range []string{"start", "draft", "check", "publish", "fail"} {
		g.Nodes = append(g.Nodes, Node{ID: id, Label: id})
	}
	g.Edges = []Edge{
		{From: "start", To: "draft"}, {From: "draft", To: "draft", Label: "retry"},
		{From: "draft", To: "check"}, {From: "check", To: "draft", Label: "rejected", Kind: "denied"},
		{From: "check", To: "publish", Label: "ok"}, {From: "check", To: "publish", Label: "ok after review"},
		{From: "start", To: "fail", Kind: "muted"}, {From: "check", To: "fail", Label: "gave up"},
	}
	return g
}
