// Package diff says how two versions of a file agentry keeps versions of
// differ: Summary is the one line a version's history shows ("description,
// tools changed; body +3 −1"), Lines the line-by-line comparison the
// side-by-side view draws, Sections the two parts (frontmatter, body) an
// agent or skill file is compared in.
//
// It is a package of its own because the versions (delegation/versions,
// web/history, trace's version records) are its only readers; registry
// itself never compares files. It reads a Markdown file's parts with
// registry.Parse, so a file splits here exactly as the registry reads it,
// and compares lines with github.com/sergi/go-diff's line mode.
package diff
