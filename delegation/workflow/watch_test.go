package workflow_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry/folder"
)

// These tests run the catalog behind registry/folder, the same watcher and
// compare-and-swap save as the agents folder.

func flowText(name, desc string) string {
	return fmt.Sprintf("workflow: {name: %s, description: %q}\nagents:\n  w: {prompt: write}\nsteps:\n  - {id: a, agent: w, input: go}\n", name, desc)
}

func openWatched(t testing.TB, files map[string]string) (string, *workflow.Catalog, *folder.Folder) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cat := workflow.NewCatalog(nil)
	f, err := folder.OpenContents(dir, cat, folder.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return dir, cat, f
}

// waitFor waits for the catalog to satisfy ok, woken by its changes.
func waitFor(t testing.TB, cat *workflow.Catalog, what string, ok func(*workflow.Set) bool) {
	t.Helper()
	ch, stop := cat.Subscribe()
	defer stop()
	deadline := time.After(10 * time.Second)
	for !ok(cat.Snapshot()) {
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("waited 10s for %s", what)
		}
	}
}

func description(s *workflow.Set, name string) string {
	wf, ok := s.Named(name)
	if !ok {
		return ""
	}
	return wf.Description
}

func TestTheWorkflowsFolderIsWatchedAndABrokenFileKeepsItsLastGoodVersion(t *testing.T) {
	dir, cat, _ := openWatched(t, map[string]string{"a.yaml": flowText("a", "first"), "scripts/a.script.yaml": "w: [{say: hi}]\n"})
	if got := cat.Paths(); !slices.Equal(got, []string{"a.yaml"}) {
		t.Fatalf("paths = %v", got)
	}
	os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(flowText("a", "second")), 0o644)
	waitFor(t, cat, "the edit", func(s *workflow.Set) bool { return description(s, "a") == "second" })

	os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("workflow: {name: a}\nsteps:\n  - {id: x, agent: w, input: \"{{inputs.nope}}\"}\n"), 0o644)
	waitFor(t, cat, "the broken file", func(s *workflow.Set) bool { f, _ := s.File("a.yaml"); return f.Stale })
	f, _ := cat.Snapshot().File("a.yaml")
	if p := f.Problems[0]; p.File != "a.yaml" || p.Line != 3 || !strings.Contains(p.Message, "nope") {
		t.Fatalf("problem = %+v, want a.yaml line 3 naming the input", p)
	}
	if description(cat.Snapshot(), "a") != "second" {
		t.Fatal("the last good version is not served")
	}

	os.WriteFile(filepath.Join(dir, "b.yml"), []byte(flowText("b", "new")), 0o644)
	waitFor(t, cat, "a new file", func(s *workflow.Set) bool { return description(s, "b") == "new" })
	os.Remove(filepath.Join(dir, "b.yml"))
	waitFor(t, cat, "the deletion", func(s *workflow.Set) bool { _, ok := s.File("b.yml"); return !ok })
}

func TestWorkflowSavesAreACompareAndSwap(t *testing.T) {
	dir, cat, f := openWatched(t, map[string]string{"a.yaml": flowText("a", "first")})
	loaded, _ := cat.Snapshot().File("a.yaml")
	os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(flowText("a", "by another program")), 0o644)
	if _, err := f.Write("a.yaml", []byte(flowText("a", "mine")), loaded.Hash); err == nil {
		t.Fatal("a save over another program's write was accepted")
	}
	if got := description(cat.Snapshot(), "a"); got != "by another program" {
		t.Fatalf("after the refusal the catalog serves %q, not the version on disk", got)
	}
	now, _ := cat.Snapshot().File("a.yaml")
	if _, err := f.Write("a.yaml", []byte(flowText("a", "mine")), now.Hash); err != nil {
		t.Fatalf("a save from the current version: %v", err)
	}
	if description(cat.Snapshot(), "a") != "mine" {
		t.Fatal("the catalog does not serve the saved version when Write returns")
	}
	if _, err := f.Write("scripts/x.yaml", []byte("x"), ""); err == nil {
		t.Fatal("a save outside the workflow files was accepted")
	}
}

// BenchmarkWorkflowWriteToCatalog measures how long after another program
// writes a workflow file (os.WriteFile) the catalog serves it, with the
// default debounce, in a folder of the seven shipped workflows.
func BenchmarkWorkflowWriteToCatalog(b *testing.B) {
	files := map[string]string{}
	shipped, _ := filepath.Glob("../../workflows/*.yaml")
	for _, p := range shipped {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		files[filepath.Base(p)] = string(data)
	}
	files["edited.yaml"] = flowText("edited", "start")
	dir, cat, _ := openWatched(b, files)
	ch, stop := cat.Subscribe()
	defer stop()
	var took []time.Duration
	i := 0
	for b.Loop() {
		i++
		want := fmt.Sprintf("edit %d", i)
		start := time.Now()
		if err := os.WriteFile(filepath.Join(dir, "edited.yaml"), []byte(flowText("edited", want)), 0o644); err != nil {
			b.Fatal(err)
		}
		deadline := time.After(10 * time.Second)
		for description(cat.Snapshot(), "edited") != want {
			select {
			case <-ch:
			case <-deadline:
				b.Fatalf("edit %d never reached the catalog", i)
			}
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(took[len(took)*9/10].Microseconds())/1000, "p90-ms")
}
