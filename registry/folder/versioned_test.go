package folder

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/registry"
)

// changeLog collects what a Versioned contents hands on.
type changeLog struct {
	mu  sync.Mutex
	got []registry.FileChanged
	ch  chan struct{}
}

func (l *changeLog) on(fc registry.FileChanged) {
	l.mu.Lock()
	l.got = append(l.got, fc)
	l.mu.Unlock()
	select {
	case l.ch <- struct{}{}:
	default:
	}
}

func (l *changeLog) all() []registry.FileChanged {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]registry.FileChanged(nil), l.got...)
}

// waitLen waits until n changes were handed on.
func (l *changeLog) waitLen(t *testing.T, n int) []registry.FileChanged {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		if got := l.all(); len(got) >= n {
			return got
		}
		select {
		case <-l.ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %d changes; have %+v", n, l.all())
		}
	}
}

func openVersioned(t *testing.T, files map[string]string) (*Folder, *registry.Registry, *changeLog) {
	t.Helper()
	dir := t.TempDir()
	for rel, text := range files {
		writeFile(t, dir, rel, text)
	}
	reg := registry.New(nil)
	log := &changeLog{ch: make(chan struct{}, 1)}
	c := VersionedAgents(reg, registry.Options{}, log.on)
	f, err := OpenContents(dir, c, Config{Debounce: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, reg, log
}

func TestEveryChangeToAnAgentFileIsHandedOnOnceWithItsSource(t *testing.T) {
	f, reg, log := openVersioned(t, map[string]string{"lead.md": agentText("lead", "one")})
	v2 := agentText("lead", "two")
	if _, err := Sourced(f, registry.SourceWeb).Write("lead.md", []byte(v2), registry.Hash([]byte(agentText("lead", "one")))); err != nil {
		t.Fatal(err)
	}
	got := log.waitLen(t, 1)
	if c := got[0]; c.Kind != registry.KindAgent || c.Name != "lead" || c.Path != "lead.md" || string(c.Data) != v2 || c.Source != registry.SourceWeb {
		t.Fatalf("the save was handed on as %+v", c)
	}
	// An outside program's write is the file system's, and the watcher's
	// second look at the web save is not a version of its own.
	v3 := agentText("lead", "three")
	if err := os.WriteFile(filepath.Join(f.Dir(), "lead.md"), []byte(v3), 0o644); err != nil {
		t.Fatal(err)
	}
	got = log.waitLen(t, 2)
	if c := got[1]; string(c.Data) != v3 || c.Source != registry.SourceFiles {
		t.Fatalf("the outside write was handed on as %+v", c)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if a, _ := reg.Snapshot().Agent("lead"); a.Version != registry.Hash([]byte(v3)) {
		t.Errorf("the agent's version is %q, want the hash of what it runs", a.Version)
	}
	if n := len(log.all()); n != 2 {
		t.Errorf("%d changes handed on after a rescan of unchanged files, want 2: %+v", n, log.all())
	}
}

func TestARenameKeepsTheNamesHistoryAndADeleteEndsIt(t *testing.T) {
	text := agentText("lead", "one")
	f, _, log := openVersioned(t, map[string]string{"lead.md": text})
	w := Sourced(f, registry.SourceWeb)
	if err := w.Rename("lead.md", "team/lead.md", registry.Hash([]byte(text))); err != nil {
		t.Fatal(err)
	}
	got := log.waitLen(t, 1)
	if c := got[0]; c.Deleted || c.Path != "team/lead.md" || c.Name != "lead" {
		t.Fatalf("the rename was handed on as %+v", c)
	}
	if err := w.Delete("team/lead.md", registry.Hash([]byte(text))); err != nil {
		t.Fatal(err)
	}
	got = log.waitLen(t, 2)
	if c := got[1]; !c.Deleted || c.Name != "lead" || c.Source != registry.SourceWeb {
		t.Fatalf("the delete was handed on as %+v", c)
	}
	for _, c := range got {
		if c.Deleted && c.Path == "lead.md" {
			t.Errorf("the rename's deletion of the old path was handed on: %+v", c)
		}
	}
}
