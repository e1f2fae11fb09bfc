package history

import (
	"github.com/agentry/agentry/registry/diff"
	"github.com/agentry/agentry/web/core"
)

// View is a History page: of an agent, or of another kind of file.
type View struct {
	Name        string // in the URL: an agent's or a skill's id, a workflow file's stem
	Base        string // the pages' URL prefix: "/agents", "/skills", "/workflows"
	Editor      string // what follows BASE/NAME in the editor's URL
	Runs        bool   // list the runs of each version (agents and workflows: runs record no skill versions)
	Path        string // the file now (or last, when deleted)
	CurrentHash string // "" when the agent has no file now
	Off         bool   // the store keeps no versions
	CanRestore  bool
	Restored    string // the version just restored, for the notice
	Conflict    string // why the restore just asked for was refused
	Versions    []VersionRow
	Git         []CommitRow
	GitNote     string
	CSRF        string
}

// Comparable reports whether two versions with content are listed: a pair
// to diff. A single version (or one beside deletions) has none.
func (v View) Comparable() bool {
	n := 0
	for _, r := range v.Versions {
		if !r.Deleted {
			n++
		}
	}
	return n >= 2
}

// Restorable are the versions a restore would change the file to: those
// with content that are not the file now, each content once (its newest
// row). A version the file went back to (a restore, an undo in an editor)
// has an older row with the same content as the current one.
func (v View) Restorable() []VersionRow {
	seen := map[string]bool{}
	var out []VersionRow
	for _, r := range v.Versions {
		if v.Differs(r) && !seen[r.Hash] {
			seen[r.Hash] = true
			out = append(out, r)
		}
	}
	return out
}

// Differs reports whether r has content and it is not the file's now: a
// row to diff with the current version or restore.
func (v View) Differs(r VersionRow) bool {
	if r.Deleted {
		return false
	}
	for _, c := range v.Versions {
		if c.Current {
			return r.Hash != c.Hash
		}
	}
	return true
}

// VersionRow is one version in the list.
type VersionRow struct {
	Hash, Short, Time, Source, Summary string
	Current, Deleted                   bool
	Runs                               []RunLink // the newest runs that used it
	RunCount                           int
}

// MoreRuns is how many runs used the version beyond those listed.
func (r VersionRow) MoreRuns() int { return r.RunCount - len(r.Runs) }

// RunLink is a run that used a version.
type RunLink struct{ ID, Short, Status string }

// CommitRow is one git commit of the file.
type CommitRow struct {
	Hash, Short, Time, Author, Message string
	Deleted                            bool // the commit deleted the file
}

// DiffView is two versions side by side.
type DiffView struct {
	Name     string
	Base     string
	A, B     Side
	Sections []core.DiffSection
}

// Side names one side of a diff.
type Side struct {
	Label string
	Ref   string // what the diff's query calls it
	Hash  string
}

// sideBySide compares two contents of a file: frontmatter and body apart
// for an agent or skill file, the whole text of a workflow (or of a file
// that does not parse) as one.
func sideBySide(file string, a, b []byte) []core.DiffSection {
	fa, ba := diff.Sections(file, a)
	fb, bb := diff.Sections(file, b)
	if fa == "" && fb == "" {
		return []core.DiffSection{core.SideBySide("File", ba, bb)}
	}
	return []core.DiffSection{core.SideBySide("Frontmatter", fa, fb), core.SideBySide("Body", ba, bb)}
}
