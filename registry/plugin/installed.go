package plugin

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/skills"
)

// Installed is a locked plugin with what its copy holds, shaped as
// `agentry plugins list --json` prints it.
type Installed struct {
	Locked
	Agents   int `json:"agents"`
	Skills   int `json:"skills"`
	Commands int `json:"commands"`
	// Hooks counts the hook commands of hooks/hooks.json, MCPServers the
	// servers of .mcp.json.
	Hooks      int `json:"hooks"`
	MCPServers int `json:"mcp_servers"`
	// Dir is the installed copy.
	Dir string `json:"dir"`
}

// List returns every installed plugin with its counts, by name.
func (s *Store) List() ([]Installed, error) {
	l, err := s.Lock()
	if err != nil {
		return nil, err
	}
	out := make([]Installed, 0, len(l.Plugins))
	for _, p := range l.Plugins {
		in := Installed{Locked: p, Dir: s.PluginDir(p.Name)}
		in.Agents, in.Skills, in.Commands = counts(in.Dir)
		hooks, _ := s.Hooks(p.Name)
		servers, _ := s.MCPServers(p.Name)
		in.Hooks, in.MCPServers = len(hooks), len(servers)
		out = append(out, in)
	}
	return out, nil
}

// counts counts the agent files, skills and command files of a copy, as
// the registry finds them.
func counts(dir string) (agents, skillDirs, commands int) {
	walk := func(sub string, fn func(rel string)) {
		root := filepath.Join(dir, sub)
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			fn(filepath.ToSlash(rel))
			return nil
		})
	}
	walk("agents", func(rel string) {
		if _, ok := registry.PluginAgentPath("p/agents/" + rel); ok {
			agents++
		}
	})
	walk("skills", func(rel string) {
		if strings.Count(rel, "/") == 1 && strings.HasSuffix(rel, "/"+skills.FileName) {
			skillDirs++
		}
	})
	walk("commands", func(rel string) {
		if skills.IsCommandFile(rel) {
			commands++
		}
	})
	return agents, skillDirs, commands
}

// Hook is one command a plugin's hooks.json would run: Claude Code's event
// and matcher, and the command with ${CLAUDE_PLUGIN_ROOT} put in.
type Hook struct {
	Event   string `json:"event"`
	Matcher string `json:"matcher,omitempty"`
	If      string `json:"if,omitempty"` // the handler's own condition, a permission rule
	Command string `json:"command"`
}

// String is the hook in its file's words, as a consent screen lists it:
// "PostToolUse Bash if Bash(git commit *): ./check.sh".
func (h Hook) String() string {
	s := h.Event + " " + cmp.Or(h.Matcher, "*")
	if h.If != "" {
		s += " if " + h.If
	}
	return s + ": " + h.Command
}

// Hooks lists what the plugin's hooks would run, in the file's order;
// none when it has no hooks.json.
func (s *Store) Hooks(name string) ([]Hook, error) {
	data, err := s.HooksJSON(name)
	if data == nil {
		return nil, err
	}
	var f struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				If      string `json:"if"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := decodeJSON(filepath.Join(s.PluginDir(name), HooksFile), data, &f); err != nil {
		return nil, err
	}
	var out []Hook
	for _, ev := range slices.Sorted(maps.Keys(f.Hooks)) {
		for _, m := range f.Hooks[ev] {
			for _, h := range m.Hooks {
				out = append(out, Hook{Event: ev, Matcher: m.Matcher, If: h.If, Command: h.Command})
			}
		}
	}
	return out, nil
}

// HooksJSON returns the plugin's hooks.json with ${CLAUDE_PLUGIN_ROOT} put
// in, as Claude Code runs it; nil when there is none.
func (s *Store) HooksJSON(name string) ([]byte, error) {
	return s.config(name, HooksFile)
}

// MCPServer is one server a plugin's .mcp.json would start.
type MCPServer struct {
	Name    string            `json:"name"`
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// URL is set for a remote (HTTP) server, which agentry does not start.
	URL string `json:"url,omitempty"`
}

// MCPServers lists the servers of the plugin's .mcp.json, by name.
func (s *Store) MCPServers(name string) ([]MCPServer, error) {
	data, err := s.config(name, MCPFile)
	if data == nil {
		return nil, err
	}
	var f struct {
		Servers map[string]MCPServer `json:"mcpServers"`
	}
	if err := decodeJSON(filepath.Join(s.PluginDir(name), MCPFile), data, &f); err != nil {
		return nil, err
	}
	out := make([]MCPServer, 0, len(f.Servers))
	for _, n := range slices.Sorted(maps.Keys(f.Servers)) {
		srv := f.Servers[n]
		srv.Name = n
		out = append(out, srv)
	}
	return out, nil
}

// config reads a plugin's configuration file with ${CLAUDE_PLUGIN_ROOT}
// replaced by the installed copy, as a JSON string's content.
func (s *Store) config(name, file string) ([]byte, error) {
	if !pluginNameRE.MatchString(name) {
		return nil, fmt.Errorf("%q is no plugin name", name)
	}
	data, err := os.ReadFile(filepath.Join(s.PluginDir(name), file))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	root, _ := json.Marshal(s.PluginDir(name))
	return []byte(strings.ReplaceAll(string(data), "${CLAUDE_PLUGIN_ROOT}", string(root[1:len(root)-1]))), nil
}
