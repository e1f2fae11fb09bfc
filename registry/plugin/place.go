package plugin

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// components are the folders whose default a component list replaces.
var components = []string{"agents", "skills", "commands"}

// place builds the installed copy of the plugin at root (from the
// marketplace at market) beside the old one and swaps it in; it returns
// the digest of what the plugin's hooks and servers would run.
func (s *Store) place(market, root string, e Entry, man Manifest) (string, error) {
	stage, err := os.MkdirTemp(s.Dir, "."+e.Name+".new-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(stage)
	whole := filepath.Clean(root) != filepath.Clean(market)
	if whole {
		if err := copyTree(root, stage); err != nil {
			return "", err
		}
	}
	for _, kind := range components {
		listed := append(listOf(e.Manifest, kind), listOf(man, kind)...)
		if err := placeComponent(root, stage, kind, listed, whole); err != nil {
			return "", err
		}
	}
	if err := placeConfig(root, stage, HooksFile, firstRaw(e.Hooks, man.Hooks), whole, "hooks"); err != nil {
		return "", err
	}
	if err := placeConfig(root, stage, MCPFile, firstRaw(e.MCPServers, man.MCPServers), whole, "mcpServers"); err != nil {
		return "", err
	}
	if err := writeManifest(stage, e, man); err != nil {
		return "", err
	}
	digest := runsDigest(stage)
	if err := swapIn(stage, s.PluginDir(e.Name)); err != nil {
		return "", err
	}
	return digest, nil
}

func listOf(m Manifest, kind string) []string {
	switch kind {
	case "agents":
		return m.Agents
	case "skills":
		return m.Skills
	}
	return m.Commands
}

func firstRaw(a, b json.RawMessage) json.RawMessage {
	if len(a) > 0 && string(a) != "null" {
		return a
	}
	return b
}

// placeComponent puts a component's files in the copy's standard folder:
// those listed, when the plugin lists any (replacing the default folder),
// else the default folder (already there when the whole plugin was
// copied).
func placeComponent(root, stage, kind string, listed []string, whole bool) error {
	dst := filepath.Join(stage, kind)
	if len(listed) == 0 {
		if whole {
			return nil
		}
		src := filepath.Join(root, kind)
		if _, err := os.Stat(src); err != nil {
			return nil
		}
		return copyTree(src, dst)
	}
	fresh := filepath.Join(stage, "."+kind+".listed")
	for _, rel := range listed {
		src, err := within(root, rel)
		if err != nil {
			return fmt.Errorf("%s: %w", kind, err)
		}
		info, err := os.Stat(src)
		if err != nil {
			return fmt.Errorf("%s: %s is listed but missing", kind, rel)
		}
		switch {
		case !info.IsDir():
			err = copyFile(src, filepath.Join(fresh, filepath.Base(src)), info.Mode())
		case kind == "skills" && exists(filepath.Join(src, "SKILL.md")):
			err = copyTree(src, filepath.Join(fresh, filepath.Base(src)))
		default:
			err = copyTree(src, fresh)
		}
		if err != nil {
			return err
		}
	}
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	return os.Rename(fresh, dst)
}

// placeConfig puts hooks.json or .mcp.json in place: from the path or the
// inline configuration the manifest gives, else the plugin's own file;
// top is the file's one top-level key (underKey).
func placeConfig(root, stage, file string, given json.RawMessage, whole bool, top string) error {
	dst := filepath.Join(stage, file)
	var data []byte
	var p string
	switch {
	case len(given) > 0 && json.Unmarshal(given, &p) == nil:
		src, err := within(root, p)
		if err != nil {
			return err
		}
		if data, err = os.ReadFile(src); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	case len(given) > 0:
		data = given
	case whole:
		return nil
	default:
		src := filepath.Join(root, file)
		if !exists(src) {
			return nil
		}
		if file == HooksFile { // hook scripts sit beside hooks.json
			return copyTree(filepath.Dir(src), filepath.Dir(dst))
		}
		var err error
		if data, err = os.ReadFile(src); err != nil {
			return err
		}
	}
	data, err := underKey(data, top)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

// underKey writes a configuration in its file's shape, {top: {…}}: inline
// hooks ({"PreToolUse": …}) become hooks.json's {"hooks": {…}}, inline
// servers ({"name": {…}}) .mcp.json's {"mcpServers": {…}}. A configuration
// already in that shape is kept as it is.
func underKey(data []byte, top string) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	if _, ok := m[top]; ok {
		return data, nil
	}
	return json.MarshalIndent(map[string]any{top: m}, "", "  ")
}

// writeManifest gives the copy a plugin.json: the plugin's own, or one made
// from its marketplace entry (strict: false plugins need none).
func writeManifest(stage string, e Entry, man Manifest) error {
	dst := filepath.Join(stage, ManifestFile)
	if exists(dst) {
		return nil
	}
	m := map[string]string{"name": e.Name, "version": firstOf(e.Version, man.Version), "description": firstOf(e.Description, man.Description)}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, append(data, '\n'), 0o644)
}

// runsDigest hashes what a copy's hooks and servers would run.
func runsDigest(dir string) string {
	h := sha256.New()
	for _, f := range []string{HooksFile, MCPFile} {
		data, _ := os.ReadFile(filepath.Join(dir, f))
		h.Write(data)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// swapIn replaces the folder dst by stage: the old copy is moved aside
// first and removed after, so dst is never half written.
func swapIn(stage, dst string) error {
	old := ""
	if exists(dst) {
		old = stage + ".old"
		if err := os.Rename(dst, old); err != nil {
			return err
		}
	}
	if err := os.Rename(stage, dst); err != nil {
		if old != "" {
			os.Rename(old, dst)
		}
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// copyTree copies the folder src into dst (made as needed), keeping file
// modes (scripts stay executable). .git and node_modules are left out; a
// symbolic link is copied as the file it leads to when that is inside
// src, and left out otherwise, so a copy never leads outside itself.
func copyTree(src, dst string) error {
	real, err := filepath.EvalSymlinks(src)
	if err != nil {
		return err
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") && rel != "." {
			return fs.SkipDir
		}
		target := filepath.Join(dst, rel)
		info, err := os.Stat(p) // follows links
		if err != nil {
			return nil // a dangling link
		}
		if d.Type()&fs.ModeSymlink != 0 {
			to, err := filepath.EvalSymlinks(p)
			if err != nil || !strings.HasPrefix(to, real+string(filepath.Separator)) || info.IsDir() {
				return nil
			}
		}
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		return copyFile(p, target, info.Mode())
	})
}

func copyFile(src, dst string, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode.Perm()|0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
