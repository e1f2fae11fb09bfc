package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"
)

// LockFile is the lock file's name inside the plugins folder.
const LockFile = "plugins.lock.json"

// sourcesDir holds the clones of marketplaces and plugins added by URL.
const sourcesDir = ".sources"

// Store is the plugins folder: the installed copies and the lock file.
// Its methods take an flock on the folder for every change, so two
// agentry processes never interleave installs.
type Store struct {
	// Dir is the plugins folder; it is made on the first install.
	Dir string
	// Now stamps installs; nil means time.Now.
	Now func() time.Time
}

// Lock is what the lock file records.
type Lock struct {
	Plugins []Locked `json:"plugins"`
}

// Locked is one installed plugin.
type Locked struct {
	Name        string `json:"name"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"`
	// Marketplace is the marketplace's name, "" for a plugin folder added
	// on its own.
	Marketplace string `json:"marketplace,omitempty"`
	// Source is what was added: a local folder (absolute) or a git URL.
	Source string `json:"source"`
	// Path is where in Source the plugin came from: its marketplace
	// entry's source ("./plugins/x", or a repository and folder).
	Path string `json:"path,omitempty"`
	// Commit is the commit of the repository the plugin was copied from
	// ("" for a local folder outside git).
	Commit      string    `json:"commit,omitempty"`
	InstalledAt time.Time `json:"installed_at"`
	// HooksEnabled and MCPEnabled are set by a person (plugins enable):
	// until then the plugin's hooks and MCP servers do not run.
	HooksEnabled bool `json:"hooks_enabled"`
	MCPEnabled   bool `json:"mcp_enabled"`
	// RunsDigest is a hash of what the hooks and servers would run, so an
	// update that changes it disables them again.
	RunsDigest string `json:"runs_digest,omitempty"`
}

// pluginNameRE is a plugin name that is safe as a folder name.
var pluginNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// Lock reads the lock file; a folder without one has installed nothing.
func (s *Store) Lock() (Lock, error) {
	var l Lock
	err := readJSON(filepath.Join(s.Dir, LockFile), &l)
	if errors.Is(err, os.ErrNotExist) {
		return Lock{}, nil
	}
	return l, err
}

// Find returns the locked plugin called name.
func (l Lock) Find(name string) (Locked, bool) {
	i := slices.IndexFunc(l.Plugins, func(p Locked) bool { return p.Name == name })
	if i < 0 {
		return Locked{}, false
	}
	return l.Plugins[i], true
}

// put records p, replacing the entry of the same name.
func (l *Lock) put(p Locked) {
	if i := slices.IndexFunc(l.Plugins, func(x Locked) bool { return x.Name == p.Name }); i >= 0 {
		l.Plugins[i] = p
		return
	}
	l.Plugins = append(l.Plugins, p)
	slices.SortFunc(l.Plugins, func(a, b Locked) int { return strings.Compare(a.Name, b.Name) })
}

// writeLock replaces the lock file in one rename.
func (s *Store) writeLock(l Lock) error {
	if l.Plugins == nil {
		l.Plugins = []Locked{}
	}
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(s.Dir, "."+LockFile+".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(s.Dir, LockFile))
}

// locked runs fn with the plugins folder made and flock'ed.
func (s *Store) locked(fn func() error) error {
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return fmt.Errorf("plugins folder: %w", err)
	}
	d, err := os.Open(s.Dir)
	if err != nil {
		return fmt.Errorf("plugins folder: %w", err)
	}
	defer d.Close()
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock plugins folder: %w", err)
	}
	defer syscall.Flock(int(d.Fd()), syscall.LOCK_UN)
	return fn()
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Remove uninstalls the plugin called name: its folder and lock entry.
func (s *Store) Remove(name string) error {
	return s.locked(func() error {
		l, err := s.Lock()
		if err != nil {
			return err
		}
		if _, ok := l.Find(name); !ok {
			return fmt.Errorf("plugin %q is not installed%s", name, s.installedList(l))
		}
		if err := os.RemoveAll(filepath.Join(s.Dir, name)); err != nil {
			return err
		}
		l.Plugins = slices.DeleteFunc(l.Plugins, func(p Locked) bool { return p.Name == name })
		return s.writeLock(l)
	})
}

// Enable turns on (or with on false, off) the hooks and/or MCP servers of
// the plugin called name; a person decides this after seeing Runs.
func (s *Store) Enable(name string, hooks, mcp, on bool) error {
	return s.locked(func() error {
		l, err := s.Lock()
		if err != nil {
			return err
		}
		p, ok := l.Find(name)
		if !ok {
			return fmt.Errorf("plugin %q is not installed%s", name, s.installedList(l))
		}
		if hooks {
			p.HooksEnabled = on
		}
		if mcp {
			p.MCPEnabled = on
		}
		l.put(p)
		return s.writeLock(l)
	})
}

// installedList is ": installed are a, b" for messages, or "".
func (s *Store) installedList(l Lock) string {
	if len(l.Plugins) == 0 {
		return " (no plugins are installed)"
	}
	names := make([]string, len(l.Plugins))
	for i, p := range l.Plugins {
		names[i] = p.Name
	}
	return " (installed: " + strings.Join(names, ", ") + ")"
}

// PluginDir is the installed copy of the plugin called name, absolute.
func (s *Store) PluginDir(name string) string {
	dir, err := filepath.Abs(filepath.Join(s.Dir, name))
	if err != nil {
		return filepath.Join(s.Dir, name)
	}
	return dir
}
