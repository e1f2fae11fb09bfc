package plugin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Report is what an add or update did.
type Report struct {
	Installed []Locked  `json:"installed"`
	Skipped   []Skipped `json:"skipped"`
	// Disabled names plugins whose hooks or servers were enabled and were
	// turned off because what they run changed.
	Disabled []string `json:"disabled,omitempty"`
}

// Skipped is a plugin that was not installed, and why.
type Skipped struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	Reason string `json:"reason"`
}

// origin is a resolved add: the folder to read and how to record it.
type origin struct {
	dir    string // local folder holding the marketplace or plugin
	source string // what the lock file records as Source
	commit string
}

// Add installs from src, a local folder or a git URL holding a marketplace
// (every plugin, or those only names) or one plugin. Plugins whose source
// cannot be fetched are skipped with the reason; the rest are installed.
// The error is for what stops the whole add: src unreadable, a broken
// marketplace.json, a name in only that the marketplace lacks.
func (s *Store) Add(ctx context.Context, src string, only []string) (Report, error) {
	var rep Report
	err := s.locked(func() error {
		o, err := s.resolve(ctx, src)
		if err != nil {
			return err
		}
		rep, err = s.install(ctx, o, only)
		return err
	})
	return rep, err
}

// Update installs the named plugins (every installed one when names is
// empty) again from the sources the lock file records: a URL's clone is
// fetched anew, a local folder read again.
func (s *Store) Update(ctx context.Context, names []string) (Report, error) {
	var rep Report
	err := s.locked(func() error {
		l, err := s.Lock()
		if err != nil {
			return err
		}
		bySource := map[string][]string{}
		var order []string
		for _, p := range l.Plugins {
			if len(names) > 0 && !slices.Contains(names, p.Name) {
				continue
			}
			if bySource[p.Source] == nil {
				order = append(order, p.Source)
			}
			bySource[p.Source] = append(bySource[p.Source], p.Name)
		}
		for _, n := range names {
			if _, ok := l.Find(n); !ok {
				return fmt.Errorf("plugin %q is not installed%s", n, s.installedList(l))
			}
		}
		for _, src := range order {
			o, err := s.resolve(ctx, src)
			if err != nil {
				for _, n := range bySource[src] {
					rep.Skipped = append(rep.Skipped, Skipped{Name: n, Source: src, Reason: err.Error()})
				}
				continue
			}
			r, err := s.install(ctx, o, bySource[src])
			if err != nil {
				return err
			}
			rep.Installed = append(rep.Installed, r.Installed...)
			rep.Skipped = append(rep.Skipped, r.Skipped...)
			rep.Disabled = append(rep.Disabled, r.Disabled...)
		}
		return nil
	})
	return rep, err
}

// resolve finds the folder src names: a local folder as it is, a git URL
// cloned (or fetched again) under the plugins folder's .sources.
func (s *Store) resolve(ctx context.Context, src string) (origin, error) {
	if !IsGitURL(src) {
		abs, err := filepath.Abs(src)
		if err != nil {
			return origin{}, err
		}
		if info, err := os.Stat(abs); err != nil || !info.IsDir() {
			return origin{}, fmt.Errorf("%s: not a folder holding a marketplace or a plugin", src)
		}
		return origin{dir: abs, source: abs, commit: commitOf(ctx, abs)}, nil
	}
	dir := filepath.Join(s.Dir, sourcesDir, slug(src))
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		if _, err := git(ctx, dir, "fetch", "--quiet", "--depth", "1", "origin", "HEAD"); err != nil {
			return origin{}, err
		}
		if _, err := git(ctx, dir, "reset", "--quiet", "--hard", "FETCH_HEAD"); err != nil {
			return origin{}, err
		}
	} else {
		os.RemoveAll(dir)
		if err := clone(ctx, src, "", "", dir); err != nil {
			return origin{}, err
		}
	}
	return origin{dir: dir, source: src, commit: commitOf(ctx, dir)}, nil
}

// install installs the plugins of the folder o (a marketplace, or one
// plugin), only those named when only is not empty.
func (s *Store) install(ctx context.Context, o origin, only []string) (Report, error) {
	var rep Report
	entries, market, err := entriesOf(o.dir)
	if err != nil {
		return rep, err
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	for _, n := range only {
		if !slices.Contains(names, n) {
			return rep, fmt.Errorf("%s has no plugin %q (it has: %s)", o.source, n, strings.Join(names, ", "))
		}
	}
	l, err := s.Lock()
	if err != nil {
		return rep, err
	}
	for _, e := range entries {
		if len(only) > 0 && !slices.Contains(only, e.Name) {
			continue
		}
		p, why := s.installOne(ctx, o, market, e)
		if why != "" {
			rep.Skipped = append(rep.Skipped, Skipped{Name: e.Name, Source: e.Source.String(), Reason: why})
			continue
		}
		if old, ok := l.Find(p.Name); ok {
			p.HooksEnabled, p.MCPEnabled = old.HooksEnabled, old.MCPEnabled
			if old.RunsDigest != p.RunsDigest && (old.HooksEnabled || old.MCPEnabled) {
				p.HooksEnabled, p.MCPEnabled = false, false
				rep.Disabled = append(rep.Disabled, p.Name)
			}
		}
		l.put(p)
		rep.Installed = append(rep.Installed, p)
	}
	return rep, s.writeLock(l)
}

// entriesOf lists the plugins of dir: its marketplace's entries, or the
// folder itself as one plugin named by its plugin.json (or its name).
func entriesOf(dir string) ([]Entry, string, error) {
	if _, err := os.Stat(filepath.Join(dir, MarketplaceFile)); err == nil {
		m, err := ReadMarketplace(dir)
		if err != nil {
			return nil, "", err
		}
		for i := range m.Plugins {
			if src := &m.Plugins[i].Source; src.Kind == "path" && m.Metadata.PluginRoot != "" && !strings.HasPrefix(src.Path, "./") {
				src.Path = filepath.ToSlash(filepath.Join(m.Metadata.PluginRoot, src.Path))
			}
		}
		return m.Plugins, m.Name, nil
	}
	man, err := ReadManifest(dir)
	if err != nil {
		return nil, "", err
	}
	if man.Name == "" && !anyComponent(dir) {
		return nil, "", fmt.Errorf("%s: no %s and no plugin (%s, agents/, skills/ or commands/) in it", dir, MarketplaceFile, ManifestFile)
	}
	if man.Name == "" {
		man.Name = filepath.Base(dir)
	}
	return []Entry{{Manifest: man, Source: Source{Kind: "path", Path: "."}}}, "", nil
}

func anyComponent(dir string) bool {
	for _, c := range []string{ManifestFile, "agents", "skills", "commands"} {
		if _, err := os.Stat(filepath.Join(dir, c)); err == nil {
			return true
		}
	}
	return false
}

// installOne fetches one entry's plugin and installs its copy; why says
// why it was skipped.
func (s *Store) installOne(ctx context.Context, o origin, market string, e Entry) (p Locked, why string) {
	if !pluginNameRE.MatchString(e.Name) || e.Name == sourcesDir {
		return p, fmt.Sprintf("the name %q cannot name a folder", e.Name)
	}
	root, commit, cleanup, why := s.fetch(ctx, o, e.Source)
	defer cleanup()
	if why != "" {
		return p, why
	}
	man, err := ReadManifest(root)
	if err != nil {
		return p, err.Error()
	}
	digest, err := s.place(o.dir, root, e, man)
	if err != nil {
		return p, err.Error()
	}
	return Locked{
		Name: e.Name, Version: firstOf(e.Version, man.Version), Description: firstOf(e.Description, man.Description),
		Marketplace: market, Source: o.source, Path: e.Source.String(), Commit: commit,
		InstalledAt: s.now().UTC(), RunsDigest: digest,
	}, ""
}

// fetch returns the folder holding an entry's plugin: inside the
// marketplace, or cloned into a temporary folder (removed by cleanup).
func (s *Store) fetch(ctx context.Context, o origin, src Source) (root, commit string, cleanup func(), why string) {
	cleanup = func() {}
	url, remote := src.Remote()
	if !remote {
		if src.Kind != "path" {
			return "", "", cleanup, fmt.Sprintf("%s sources are not supported; install the plugin from a folder", src.Kind)
		}
		root, err := within(o.dir, src.Path)
		if err != nil {
			return "", "", cleanup, err.Error()
		}
		if info, err := os.Stat(root); err != nil || !info.IsDir() {
			return "", "", cleanup, fmt.Sprintf("%s is not a folder of the marketplace", src.Path)
		}
		return root, o.commit, cleanup, ""
	}
	if err := os.MkdirAll(filepath.Join(s.Dir, sourcesDir), 0o755); err != nil {
		return "", "", cleanup, err.Error()
	}
	tmp, err := os.MkdirTemp(filepath.Join(s.Dir, sourcesDir), "fetch-")
	if err != nil {
		return "", "", cleanup, err.Error()
	}
	cleanup = func() { os.RemoveAll(tmp) }
	repo := filepath.Join(tmp, "repo")
	if err := clone(ctx, url, src.Ref, src.SHA, repo); err != nil {
		return "", "", cleanup, fmt.Sprintf("cannot fetch %s: %v", url, err)
	}
	root, err = within(repo, firstOf(src.Path, "."))
	if err != nil {
		return "", "", cleanup, err.Error()
	}
	return root, commitOf(ctx, repo), cleanup, ""
}

// within joins rel to dir and refuses a result outside dir.
func within(dir, rel string) (string, error) {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	r, err := filepath.Rel(dir, p)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s leaves its repository", rel)
	}
	return p, nil
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// slug names a URL's clone folder: readable, and unique through a hash.
func slug(url string) string {
	sum := sha256.Sum256([]byte(url))
	base := strings.TrimSuffix(filepath.Base(strings.TrimRight(url, "/")), ".git")
	if !pluginNameRE.MatchString(base) {
		base = "repo"
	}
	return base + "-" + hex.EncodeToString(sum[:4])
}
