package folder

import (
	"fmt"
	"io/fs"

	"github.com/agentry/agentry/registry"
)

// Contents is what a Folder keeps in step with its directory: which files
// and subfolders are its own, and where their content goes. A Folder holds
// one; the agents of a registry.Registry (Agents) and the workflows of a
// workflow.Catalog are the two there are, so both are watched by the same
// watcher and saved by the same compare-and-swap.
//
// Load and Apply are called by one goroutine at a time (the Folder
// serialises them); Paths may be called at any time.
type Contents interface {
	// Name says what the folder holds, for messages: "agents", "workflows".
	Name() string
	// IsFile reports whether a slash path, relative to the folder, names
	// one of its files. Hidden files never are (saves stage hidden temp
	// files beside their targets).
	IsFile(rel string) bool
	// IsFolder reports whether the subfolder at slash path rel may hold
	// such files; only those are watched and walked. "." is the folder.
	IsFolder(rel string) bool
	// Load reads every file of fsys and makes them current: the first load,
	// before the watch starts delivering changes.
	Load(fsys fs.FS) error
	// Paths lists the files held now, sorted.
	Paths() []string
	// Apply installs changed files: new content, deletions, files that are
	// there but cannot be read. A broken file keeps its last good version.
	Apply(changes []registry.Change)
}

// Agents is the Contents of an agents folder: reg's snapshots, validated
// with opts.
func Agents(reg *registry.Registry, opts registry.Options) Contents {
	return agentContents{reg: reg, opts: opts}
}

type agentContents struct {
	reg  *registry.Registry
	opts registry.Options
}

func (agentContents) Name() string             { return "agents" }
func (agentContents) IsFile(rel string) bool   { return registry.IsAgentFile(rel) }
func (agentContents) IsFolder(rel string) bool { return registry.IsAgentFolder(rel) }

// Load reads the folder with registry.Load, which parses in parallel.
func (a agentContents) Load(fsys fs.FS) error {
	s, err := registry.Load(fsys, a.opts)
	if err != nil {
		return err
	}
	a.reg.Replace(s)
	return nil
}

// Apply replaces the snapshot only when something changed, so subscribers
// are not woken for nothing.
func (a agentContents) Apply(c []registry.Change) {
	cur := a.reg.Snapshot()
	if next := cur.Apply(c...); next != cur {
		a.reg.Replace(next)
	}
}

func (a agentContents) Paths() []string {
	files := a.reg.Snapshot().Files()
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return out
}

// pathsIn lists the files of c in folder dir of fsys and below it, sorted,
// walking only the folders c may hold files in. Symbolic links are listed,
// never followed into; reading one decides whether it may be used.
func pathsIn(c Contents, fsys fs.FS, dir string) ([]string, error) {
	var paths []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // an unreadable subfolder does not stop the others
		}
		if d.IsDir() {
			if !c.IsFolder(p) {
				return fs.SkipDir
			}
			return nil
		}
		if c.IsFile(p) {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s files: %w", c.Name(), err)
	}
	return paths, nil
}
