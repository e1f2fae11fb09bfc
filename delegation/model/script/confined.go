package script

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// MaxFileBytes bounds a script read by ReadIn: a script is a few turns of
// YAML, and a larger file (or /dev/zero) must not be read into memory.
const MaxFileBytes = 1 << 20

// ErrScriptsOff is returned by ReadIn when no scripts folder is configured.
var ErrScriptsOff = errors.New("script models are off here: set serve.script_dir in agentry.yaml to allow them")

// ErrNotAScript is returned by ReadIn for a name that is not a readable,
// regular file of at most MaxFileBytes inside the scripts folder.
var ErrNotAScript = errors.New("no such script in the scripts folder")

// ReadIn reads script name from folder dir for callers whose names come from
// someone who must not read other files (the web UI): name is relative to
// dir, and ".." or a symlink that leads out of dir, a non-regular file and a
// file over MaxFileBytes are refused. Errors name the script but never show
// its contents.
func ReadIn(dir, name string) ([]byte, error) {
	if dir == "" {
		return nil, ErrScriptsOff
	}
	shown := name
	if len(shown) > 80 {
		shown = shown[:80] + "…"
	}
	if name == "" || strings.ContainsRune(name, 0) || !filepath.IsLocal(name) {
		return nil, fmt.Errorf("script %q: %w (give a name inside the folder)", shown, ErrNotAScript)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("scripts folder: %w", err)
	}
	defer root.Close()
	f, err := root.Open(name) // os.Root refuses paths and symlinks that leave dir
	if err != nil {
		return nil, fmt.Errorf("script %q: %w", shown, ErrNotAScript)
	}
	defer f.Close()
	info, err := f.Stat()
	switch {
	case err != nil, !info.Mode().IsRegular():
		return nil, fmt.Errorf("script %q: %w (not a regular file)", shown, ErrNotAScript)
	case info.Size() > MaxFileBytes:
		return nil, fmt.Errorf("script %q: %w (larger than %d bytes)", shown, ErrNotAScript, MaxFileBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil || len(data) > MaxFileBytes {
		return nil, fmt.Errorf("script %q: %w (unreadable or grew past %d bytes)", shown, ErrNotAScript, MaxFileBytes)
	}
	return data, nil
}

// LoadIn reads script name from folder dir as ReadIn does and parses it. A
// script that does not parse is reported without the parser's message,
// which can quote the file's lines.
func LoadIn(dir, name string) (*Model, error) {
	data, err := ReadIn(dir, name)
	if err != nil {
		return nil, err
	}
	m, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("script %q: %w (run it with agentry run --model script:FILE to see why)", name, ErrMalformed)
	}
	m.name = "script:" + name
	return m, nil
}

// List is the scripts in folder dir that ReadIn would accept by name: the
// regular .yaml and .yml files at its top level of at most MaxFileBytes, sorted.
func List(dir string) []string {
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if !e.Type().IsRegular() || (ext != ".yaml" && ext != ".yml") {
			continue
		}
		if info, err := e.Info(); err == nil && info.Size() <= MaxFileBytes {
			out = append(out, e.Name())
		}
	}
	return out
}
