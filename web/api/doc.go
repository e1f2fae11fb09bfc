// Package api is agentry's JSON API under /api/v1: what the web UI does,
// for programs. Its OpenAPI 3.1 document is served at
// /api/v1/openapi.json; docs/api.md has the user's side.
//
// Decisions:
//
//   - The routes are huma operations: a route exists only as a documented
//     operation, and openapi_test.go checks both ways (every route answered
//     is documented, every documented operation answers as documented,
//     its bodies validated against the document's schemas).
//   - A run started here goes through core.Live and the server's Runner,
//     as the start form's does: the UI shows it live and its Cancel
//     reaches it. The caller is recorded as protocol "api", and a
//     traceparent header joins the caller's trace.
//   - Writes are the editor's: the same checks (a file with errors is
//     refused with its problems, 422), the same compare-and-swap hash
//     (409 on a stale one), and the answer waits for the registry to load
//     the new version (core.AwaitFile).
//   - Every error, whoever raised it (serve's token and Host checks, a body
//     over the limit, huma's validation, a handler), is one shape,
//     core.APIError, whose code is stable.
//   - Token and CSRF: the same token (Authorization: Bearer). A JSON body
//     needs a CORS preflight this server never grants, so it passes
//     without the CSRF token; what a form can send does not.
package api
