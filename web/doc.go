// Package web is agentry's browser UI: an echo server that renders templ
// components, enhanced with htmx, with every asset embedded in the binary.
//
// It exists so a person can edit agent files, see who may delegate to whom and
// why, and (in the runs pages) watch traces, without a frontend build step. The
// package sits at the edge: handlers parse a request, call the registry or the
// permissions logic, build a view model shaped like the screen, and render it.
// Only this package touches echo and templ.
package web
