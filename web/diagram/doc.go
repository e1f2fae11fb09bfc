// Package diagram draws small directed graphs (the delegation graph,
// workflow step graphs) as SVG: Graphviz's dot places the boxes and routes
// the edges, a templ component writes the picture.
//
// Use:
//
//	d, err := diagram.Layout(ctx, diagram.Graph{ID: "steps", Title: "Steps", Nodes: ..., Edges: ...})
//	if errors.Is(err, diagram.ErrTooLarge) { /* show the list alone */ }
//	@diagram.SVG(d)
//
// # Why dot
//
// The hand-written layout this replaces put agents in columns and drew
// straight curves between them, so an edge could pass through a third box
// and read as a delegation that does not exist. Layered layout with edge
// routing around nodes is a solved problem; dot solves it (ranks, crossing
// reduction, splines that avoid boxes). ELK would too, but only in the
// browser, and its bundle is over a megabyte. github.com/goccy/go-graphviz
// v0.2.10 runs Graphviz compiled to WebAssembly under wazero: no cgo, no
// Graphviz on the machine. The test that matters samples every edge curve
// and fails when one enters a box other than its ends.
//
// # What it costs, and what could not be made lazy
//
// The binding compiles its WebAssembly module in its package init, so every
// process that links it pays at start, whatever the command: wazero compiles
// once per machine into os.TempDir()/go-graphviz, and later starts load that
// cache. Go cannot defer an imported package's init, the binding has no lazy
// mode, and a fork would have to carry the 1.5 MB module in this repository.
// Measured on `agentry --version`, medians of 21 runs (5 for "first start",
// each with an empty TMPDIR), 2 shared cores at load average about 10:
//
//	                          CPU         wall        max RSS
//	before                    16 ms       18-22 ms    41 MB
//	after, module cached      38 ms       47-50 ms    56 MB
//	after, first on a machine 450-500 ms  0.8-1.4 s
//
// At load average 22 the cached start was 200-220 ms wall against 40 ms.
// The binary grows by 8.8 MB (113.7 to 122.5 MB). What this package keeps
// lazy is its own part: the Graphviz context is made on the first Layout
// (sync.OnceValues, about 0.6 ms). A layout then costs about 4 ms of CPU for
// 10 agents and 30 ms for 100; a cached one, with its SVG, 0.6 ms
// (go test -run '^$' -bench . -count 3 ./web/diagram).
//
// # Rules
//
//   - dot runs one layout at a time per process (the module has one memory).
//   - Layouts are remembered by a hash of the whole Graph, 64 at most, least
//     recently used out first, so a page reload does not run dot again.
//   - Graphs over MaxNodes or MaxEdges are refused with ErrTooLarge: dot's
//     time grows faster than the graph, and such a picture is not read.
//   - Boxes have a fixed size computed from the label (cut to MaxLabel
//     runes), and dot gets no node labels, so it needs no fonts; the SVG
//     writes the text, escaped by templ.
//   - The SVG has no colours and no style attributes (the site's CSP allows
//     none): nodes carry "node" plus Node.Class, edges "edge" plus
//     Edge.Kind, arrowheads "arrow" plus Edge.Kind, and the site's CSS
//     (web/core/static/style.css, ".diagram") colours them for light and
//     dark mode. Styled kinds: allowed (or empty), denied, to-disabled,
//     muted; node classes: disabled, broken.
//   - data-testid: the <svg> is Graph.ID, boxes "node-ID", edges
//     "edge-FROM-TO" with data-from, data-to and data-kind.
package diagram
