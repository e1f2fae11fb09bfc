// Package runs is the web UI's runs page family: the runs list, the form
// that starts a run, the timeline with its live event stream and span
// details, cancel and export.
//
// Handlers are methods of Pages; web/routes.go maps URLs to them. RunStore
// and Runner are the small interfaces it needs from the trace store and the
// runtime.
package runs
