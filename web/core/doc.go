// Package core is what every page family of the web UI shares: the layout
// and its navigation, the security middleware (Host check, token, body
// limit, CSRF, headers), the one mapping from errors to HTTP statuses with
// the error page, Server-Sent Events helpers, the model picker and check of
// the start forms (Models: the runs form and the workflow form offer and
// accept the same models), and the embedded static assets, among them the
// code editor: a page that includes EditorScript turns each
// <textarea data-editor="markdown|yaml|frontmatter"> into CodeMirror 6, with
// data-problems as lint markers. The convention and how static/editor.js is
// built (make editor, from web/core/editor) are in docs/web.md, "Code editors".
//
// A 404 page says what was not found in a person's words: a handler returns
// NotFound("run", id) (a MissingError, which wraps ErrNotFound), not an error
// wrapped on its way up ("show run: run …: not found"), whose text the page
// never shows; any other 404 says there is nothing at the address. The
// JSON API's error body says the same (MessageOf serves both; an API
// handler that looks a thing up wraps the store's error with AsMissing). Every
// error page links back to the list its address belongs to (/runs/x: the
// runs), not always to the agents.
//
// It stays small on purpose: a page family imports core, core imports no
// page family, and what only one family needs stays in that family.
package core
