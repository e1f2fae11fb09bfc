package registry

import "slices"

// Duplicate says, for an id that several files define, which file serves it
// and why; `run` and the UI print it so nobody wonders which file ran.
type Duplicate struct {
	ID string `json:"id"`
	// Served is the path of the file whose agent is used.
	Served string `json:"served"`
	// Ignored are the other files defining the id, sorted; their agents are
	// not used while Served defines it.
	Ignored []string `json:"ignored"`
	// Reason says why Served was chosen.
	Reason string `json:"reason"`
}

// Reasons for the choice among files with one id. A file that appears with
// an id already served never takes it over: what runs changes only when the
// serving file is removed or renamed, never by adding a file.
const (
	reasonFirst  = "it was serving the id before the other files appeared"
	reasonSorted = "its path sorts first and none of them served the id before"
)

// chooseServed picks the file that serves id among paths (sorted, two or
// more): the one that served it in prev, else the smallest path.
func chooseServed(id string, paths []string, prev *Snapshot) Duplicate {
	d := Duplicate{ID: id, Served: paths[0], Reason: reasonSorted}
	if prev != nil {
		if pd, ok := prev.dups[id]; ok && slices.Contains(paths, pd.Served) {
			d.Served, d.Reason = pd.Served, pd.Reason
		} else if pe, ok := prev.byName[id]; ok && slices.Contains(paths, pe.path) {
			d.Served, d.Reason = pe.path, reasonFirst
		}
	}
	for _, p := range paths {
		if p != d.Served {
			d.Ignored = append(d.Ignored, p)
		}
	}
	return d
}

// Duplicates reports, when several files define id, which one is served
// and why; false when at most one file does.
func (s *Snapshot) Duplicates(id string) (Duplicate, bool) {
	d, ok := s.dups[id]
	d.Ignored = slices.Clone(d.Ignored)
	return d, ok
}

// ProblemsFor returns the problems of every file that defines id or would
// define it: the serving file, ignored duplicates, a broken file whose last
// good version is served, and a file too broken to parse whose name: line
// or file name gives that id. `agentry run X` prints them when X is not
// served (or is stale), so a broken file is reported with its file, line
// and reason instead of "unknown agent". Sorted by file then line.
func (s *Snapshot) ProblemsFor(id string) []Problem {
	var out []Problem
	for _, p := range s.problems {
		if p.Agent == id {
			out = append(out, p)
		}
	}
	return out
}
