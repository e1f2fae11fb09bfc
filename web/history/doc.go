// Package history is the web UI's History page family (docs/versions.md):
// an agent's versions newest first, with the runs that used each; a
// side-by-side diff of any two (frontmatter and body apart), which may be
// a commit of the file when the agents folder is a git repository; and
// "restore this version", a normal compare-and-swap save of the file as
// the page saw it, recorded as a new version that says what it restores.
//
// It reads versions through the small Versions interface
// (trace.VersionStore satisfies it), git commits through registry/git, and
// saves through Files (the folder's web writer).
package history
