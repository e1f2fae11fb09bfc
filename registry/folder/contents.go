package folder

import (
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/internal/files"
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

// Load reads the folder with registry.Load, which parses in parallel; the
// agents of installed plugins, which another folder feeds in, are kept.
func (a agentContents) Load(fsys fs.FS) error {
	s, err := registry.Load(fsys, a.opts)
	if err != nil {
		return err
	}
	a.reg.Update(func(cur *registry.Snapshot) *registry.Snapshot { return s.Carry(cur, true) })
	return nil
}

// Apply replaces the snapshot only when something changed, so subscribers
// are not woken for nothing.
func (a agentContents) Apply(c []registry.Change) {
	a.reg.Update(func(cur *registry.Snapshot) *registry.Snapshot { return cur.Apply(c...) })
}

func (a agentContents) Paths() []string {
	files := a.reg.Snapshot().Files()
	out := make([]string, 0, len(files))
	for _, f := range files {
		if f.Plugin == "" {
			out = append(out, f.Path)
		}
	}
	return out
}

// pathsIn lists the files of c in folder dir of fsys and below it, sorted,
// walking only the folders c may hold files in.
func pathsIn(c Contents, fsys fs.FS, dir string) ([]string, error) {
	return files.List(fsys, dir, c.Name(), c.IsFolder, c.IsFile)
}

// PluginAgents is the Contents of a plugins folder as far as agents go: the
// agents/*.md files of each installed plugin (registry.PluginAgentPath),
// fed into reg beside the agents folder's, keyed by their absolute path
// under dir (the plugins folder, absolute) and tagged with their plugin.
// The skills and commands of the same folder are a skills.Catalog root.
func PluginAgents(reg *registry.Registry, dir string) Contents {
	return pluginAgents{reg: reg, dir: dir}
}

type pluginAgents struct {
	reg *registry.Registry
	dir string
}

func (pluginAgents) Name() string { return "plugin agents" }
func (pluginAgents) IsFile(rel string) bool {
	_, ok := registry.PluginAgentPath(rel)
	return ok
}
func (pluginAgents) IsFolder(rel string) bool { return registry.IsPluginAgentFolder(rel) }

// Load reads every plugin's agent files and replaces the plugins' agents
// in the registry with them.
func (p pluginAgents) Load(fsys fs.FS) error {
	paths, err := pathsIn(p, fsys, ".")
	if err != nil {
		return err
	}
	changes := make([]registry.Change, len(paths))
	for i, rel := range paths {
		changes[i] = registry.Change{Path: rel}
	}
	registry.ReadAll(fsys, changes)
	for i := range changes {
		changes[i] = p.change(changes[i])
	}
	p.reg.Update(func(cur *registry.Snapshot) *registry.Snapshot { return cur.ReplacePlugins(changes) })
	return nil
}

// Apply installs changed plugin agent files.
func (p pluginAgents) Apply(c []registry.Change) {
	changes := make([]registry.Change, len(c))
	for i, ch := range c {
		changes[i] = p.change(ch)
	}
	p.reg.Update(func(cur *registry.Snapshot) *registry.Snapshot { return cur.Apply(changes...) })
}

// change turns a change of the folder into the registry's: the absolute
// path and the plugin.
func (p pluginAgents) change(ch registry.Change) registry.Change {
	ch.Plugin, _ = registry.PluginAgentPath(ch.Path)
	ch.Path = path.Join(filepath.ToSlash(p.dir), ch.Path)
	return ch
}

func (p pluginAgents) Paths() []string {
	var out []string
	prefix := filepath.ToSlash(p.dir) + "/"
	for _, f := range p.reg.Snapshot().Files() {
		if rel, ok := strings.CutPrefix(f.Path, prefix); ok && f.Plugin != "" {
			out = append(out, rel)
		}
	}
	return out
}
