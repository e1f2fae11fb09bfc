package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Paths of the manifests inside a marketplace or plugin folder.
const (
	MarketplaceFile = ".claude-plugin/marketplace.json"
	ManifestFile    = ".claude-plugin/plugin.json"
	HooksFile       = "hooks/hooks.json"
	MCPFile         = ".mcp.json"
)

// Marketplace is .claude-plugin/marketplace.json.
type Marketplace struct {
	Name     string `json:"name"`
	Metadata struct {
		Description string `json:"description"`
		Version     string `json:"version"`
		// PluginRoot is prepended to relative plugin sources.
		PluginRoot string `json:"pluginRoot"`
	} `json:"metadata"`
	Plugins []Entry `json:"plugins"`
}

// Entry is one plugin of a marketplace: where it comes from and, as in
// plugin.json, what it holds.
type Entry struct {
	Manifest
	Source Source `json:"source"`
	// Strict false means the entry alone describes the plugin (its source
	// needs no plugin.json).
	Strict *bool `json:"strict"`
}

// Manifest is a plugin's .claude-plugin/plugin.json (and the matching
// fields of a marketplace entry). Component lists name files or folders
// relative to the plugin's root; Hooks and MCPServers are a path or the
// configuration itself.
type Manifest struct {
	Name        string          `json:"name"`
	Version     string          `json:"version"`
	Description string          `json:"description"`
	Agents      Paths           `json:"agents"`
	Skills      Paths           `json:"skills"`
	Commands    Paths           `json:"commands"`
	Hooks       json.RawMessage `json:"hooks"`
	MCPServers  json.RawMessage `json:"mcpServers"`
}

// Paths is a component list: one path or a list of them.
type Paths []string

// UnmarshalJSON reads a string or a list of strings.
func (p *Paths) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*p = Paths{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("want a path or a list of paths")
	}
	*p = many
	return nil
}

// Source is where a marketplace entry's plugin comes from.
type Source struct {
	// Kind is "path" (a folder inside the marketplace), "github", "url"
	// (a git repository) or "git-subdir" (a folder of one).
	Kind string `json:"source"`
	Path string `json:"path"` // the folder: in the marketplace, or in the repository (git-subdir)
	Repo string `json:"repo"` // github: owner/name
	URL  string `json:"url"`
	Ref  string `json:"ref"`
	SHA  string `json:"sha"`
}

// UnmarshalJSON reads "./plugins/x" or {"source": …, …}.
func (s *Source) UnmarshalJSON(b []byte) error {
	var p string
	if json.Unmarshal(b, &p) == nil {
		*s = Source{Kind: "path", Path: p}
		return nil
	}
	type plain Source
	if err := json.Unmarshal(b, (*plain)(s)); err != nil {
		return err
	}
	switch s.Kind {
	case "github", "url", "git", "git-subdir", "npm", "pip":
		return nil
	}
	return fmt.Errorf("unknown source %q (want a path, github, url or git-subdir)", s.Kind)
}

// Remote reports whether the source is another repository, fetched with
// git, and the URL to clone.
func (s Source) Remote() (string, bool) {
	switch s.Kind {
	case "github":
		return "https://github.com/" + strings.TrimSuffix(s.Repo, ".git") + ".git", true
	case "url", "git", "git-subdir":
		return s.URL, true
	}
	return "", false
}

// String is the source as the lock file and messages show it.
func (s Source) String() string {
	if url, ok := s.Remote(); ok {
		if s.Path != "" {
			return url + "#" + s.Path
		}
		return url
	}
	if s.Kind != "path" {
		return s.Kind
	}
	return s.Path
}

// readJSON decodes the JSON file p into v strictly enough to report where
// it is broken: a syntax or type error names the file and line.
func readJSON(p string, v any) error {
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	return decodeJSON(p, data, v)
}

func decodeJSON(p string, data []byte, v any) error {
	err := json.Unmarshal(data, v)
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &syn):
		return fmt.Errorf("%s:%d: %v", p, lineAt(data, syn.Offset), syn)
	case errors.As(err, &typ):
		return fmt.Errorf("%s:%d: %s: %v", p, lineAt(data, typ.Offset), typ.Field, typ)
	}
	return fmt.Errorf("%s: %v", p, err)
}

func lineAt(data []byte, offset int64) int {
	return 1 + bytes.Count(data[:min(int(offset), len(data))], []byte("\n"))
}

// ReadMarketplace reads dir's marketplace.json. A plugin entry that does
// not decode is reported with the line it starts on.
func ReadMarketplace(dir string) (Marketplace, error) {
	p := filepath.Join(dir, MarketplaceFile)
	var m Marketplace
	var raw struct {
		Plugins []json.RawMessage `json:"plugins"`
	}
	data, err := os.ReadFile(p)
	if err == nil {
		err = decodeJSON(p, data, &raw)
	}
	if err != nil {
		return m, fmt.Errorf("marketplace: %w", err)
	}
	var head struct {
		Name     string          `json:"name"`
		Metadata json.RawMessage `json:"metadata"`
	}
	json.Unmarshal(data, &head)
	m.Name = head.Name
	json.Unmarshal(head.Metadata, &m.Metadata)
	for i, r := range raw.Plugins {
		var e Entry
		if err := json.Unmarshal(r, &e); err != nil {
			return m, fmt.Errorf("marketplace: %s:%d: plugin %d: %v", p, lineAt(data, int64(bytes.Index(data, r))), i+1, err)
		}
		if e.Name == "" {
			return m, fmt.Errorf("marketplace: %s:%d: plugin %d has no name", p, lineAt(data, int64(bytes.Index(data, r))), i+1)
		}
		m.Plugins = append(m.Plugins, e)
	}
	return m, nil
}

// ReadManifest reads a plugin folder's plugin.json; a folder without one
// has an empty manifest.
func ReadManifest(dir string) (Manifest, error) {
	var m Manifest
	err := readJSON(filepath.Join(dir, ManifestFile), &m)
	if errors.Is(err, os.ErrNotExist) {
		return Manifest{}, nil
	}
	return m, err
}
