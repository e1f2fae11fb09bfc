// Package agents is the web UI's agents page family: the agents list, the
// editor (form and raw views, create, rename, toggle, delete), the Markdown
// preview, the delegation graph, the permissions explorer, and the stream
// of registry changes that keeps those pages live.
//
// Handlers are methods of Pages; web/routes.go maps URLs to them. Catalog and
// Files are the small interfaces the family needs from the registry and the
// agents folder.
package agents
