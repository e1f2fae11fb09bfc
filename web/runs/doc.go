// Package runs is the web UI's runs page family: the runs list, the form
// that starts a run, the timeline with its live event stream and span
// details, cancel and export.
//
// Handlers are methods of Pages; web/routes.go maps URLs to them. RunStore
// and Runner are the small interfaces it needs from the trace store and the
// runtime. Every store has the reads that keep big runs cheap (Skeleton,
// Span, FindSpans) and knows each run's conversation, so the pages have one
// code path whatever the store.
//
// The timeline stays small and fast at any run size (docs/timeline.md):
//
//   - The page holds one window of about 100 rows, never the whole run. The
//     server keeps each run's layout (layout.go: the last few runs, checked
//     against the store with SpansSince and rebuilt when the run changed),
//     and GET /runs/:id/rows answers one window of a view.
//   - A view (view.go) is a query string: a starting mode, rows opened or
//     closed by hand, spans revealed by "next error", critical path only, a
//     find. Expand, Collapse, Expand all, Collapse all and Next error are one
//     request each, computed on the server, and are links too, so they and
//     the ?from= pager work without JavaScript.
//   - Rows are drawn flat, indented by level: nesting a 20,000-deep chain's
//     elements went past the HTML parser's 512-level limit and stalled layout.
//   - Ten or more sibling delegations to one agent are one group row with
//     their envelope and counts (timeline_group.go).
//   - The live stream sends the axis with the layout's version; the page
//     then refetches its window, so what travels and what the page holds do
//     not grow with the run.
package runs
