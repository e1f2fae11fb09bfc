package webtest

import (
	"io/fs"
	"strings"
	"sync"

	"github.com/agentry/agentry/registry"

	"github.com/agentry/agentry/web/agents"
)

// MemFolder is a hand-written Files over a Registry: it applies writes to the
// registry at once, with the same hash checks as registry/folder (the
// contract suite, RunFilesContract, runs both), and keeps the bytes so tests
// can read "the disk".
type MemFolder struct {
	mu    sync.Mutex
	Reg   *registry.Registry
	files map[string][]byte
}

var _ agents.Files = (*MemFolder)(nil)

func NewMemFolder(files map[string]string) *MemFolder {
	m := &MemFolder{Reg: registry.New(nil), files: map[string][]byte{}}
	var changes []registry.Change
	for p, s := range files {
		m.files[p] = []byte(s)
		changes = append(changes, registry.Change{Path: p, Data: []byte(s)})
	}
	m.Reg.Replace(m.Reg.Snapshot().Apply(changes...))
	return m
}

func (m *MemFolder) check(path, expectHash string) error {
	if !registry.IsAgentFile(path) || !fs.ValidPath(path) || strings.Contains(path, `\`) {
		return registry.ErrInvalidPath
	}
	cur, ok := m.files[path]
	switch {
	case expectHash == "" && ok:
		return registry.ErrExists
	case expectHash != "" && !ok, expectHash != "" && registry.Hash(cur) != expectHash:
		return registry.ErrConflict
	}
	return nil
}

func (m *MemFolder) Write(path string, data []byte, expectHash string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(path, expectHash); err != nil {
		return "", err
	}
	m.files[path] = append([]byte(nil), data...)
	m.Reg.Replace(m.Reg.Snapshot().Apply(registry.Change{Path: path, Data: data}))
	return registry.Hash(data), nil
}

func (m *MemFolder) Rename(oldPath, newPath, expectHash string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(oldPath, expectHash); err != nil {
		return err
	}
	if err := m.check(newPath, ""); err != nil {
		return err
	}
	data := m.files[oldPath]
	delete(m.files, oldPath)
	m.files[newPath] = data
	m.Reg.Replace(m.Reg.Snapshot().Apply(registry.Change{Path: oldPath, Deleted: true}, registry.Change{Path: newPath, Data: data}))
	return nil
}

func (m *MemFolder) Delete(path, expectHash string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(path, expectHash); err != nil {
		return err
	}
	delete(m.files, path)
	m.Reg.Replace(m.Reg.Snapshot().Apply(registry.Change{Path: path, Deleted: true}))
	return nil
}

// Disk returns a file's bytes as the fake holds them.
func (m *MemFolder) Disk(path string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[path]
	return string(b), ok
}

// Edit changes a file behind the UI's back, as another editor would.
func (m *MemFolder) Edit(path, data string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[path] = []byte(data)
	m.Reg.Replace(m.Reg.Snapshot().Apply(registry.Change{Path: path, Data: []byte(data)}))
}

// Len is how many files the fake holds.
func (m *MemFolder) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.files)
}
