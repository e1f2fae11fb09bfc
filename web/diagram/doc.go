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
// # What it costs, and why the binding is patched
//
// Upstream go-graphviz compiles and instantiates its WebAssembly module in
// a package init, so every command of the binary paid for it at start,
// whatever it did, and Go cannot defer an imported package's init. agentry
// therefore builds against a copy of v0.2.10 in ./graphviz (a module of its
// own, wired by a replace directive in go.mod; graphviz/PATCH.md lists the
// handful of changed lines) whose module starts on first use behind a
// sync.Once: only the process that draws pays, once, on its first Layout.
// Measured on `agentry --version`, medians of 7 whole-process runs, each
// run in turn with the other binary on 2 shared cores:
//
//	                          CPU      wall     peak RSS
//	binding started in init   65 ms    58 ms    63 MB
//	started on first Layout   33 ms    29 ms    53 MB
//
// (docs/build.md has the rest of the start-up's cost.)
//
// The first Layout in a process then costs what init did: wazero compiles
// the module once per machine into os.TempDir()/go-graphviz (about half a
// second) and later processes load that cache (tens of ms). A layout costs
// about 4 ms of CPU for 10 agents and 30 ms for 100; a cached one, with its
// SVG, 0.6 ms (go test -run '^$' -bench . -count 3 ./web/diagram).
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
