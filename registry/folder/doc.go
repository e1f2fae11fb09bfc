// Package folder adapts a real directory of agent files to a
// registry.Registry: it loads the folder, watches it with fsnotify
// (subfolders included) so created, changed, renamed and deleted files show
// up within a fraction of a second, and writes files for the editor
// atomically with a conflict check. A subfolder renamed or moved within,
// out of or into the folder is followed: its old watches are dropped and
// the folder is rescanned, so its agents are served under their new paths.
//
// It exists apart from registry so the domain stays free of os and
// fsnotify; tests of the domain use fstest.MapFS instead.
//
// Bursts of events (an editor writing a temp file, renaming it, touching
// it) are debounced: a reload happens once the folder has been quiet for
// the debounce interval (50 ms by default), or at the latest after eight
// intervals of continuous activity. Only the paths that events named are
// re-read; Sync re-reads everything.
package folder
