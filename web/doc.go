// Package web is agentry's browser UI: an echo server that renders templ
// components, enhanced with htmx, with every asset embedded in the binary.
//
// It exists so a person can edit agent files, see who may delegate to whom and
// why, and watch runs, without a frontend build step. This package holds only
// the Config, the Server and the one route table (routes.go); the pages live
// in one subpackage per page family (web/agents, web/runs, web/workflows,
// web/skills, web/evals, web/approvals, web/history, web/rundiff) and the
// programs' doors in theirs (web/api, web/a2a, web/mcp), over a small shared
// core (web/core: layout, CSRF and security middleware, errors, static
// assets) and the diagrams (web/diagram).
// Handlers parse a request, call the registry or the trace store, build a view
// model shaped like the screen, and render it. Only web and its subpackages
// touch echo and templ.
package web
