package folder

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/registry"
)

// BenchmarkWriteToUpdate measures how long after a file is written by
// another program (os.WriteFile, not Folder.Write) the registry serves it,
// with the default debounce, in a folder of 100 agents. It reports the
// median and mean in ms.
func BenchmarkWriteToUpdate(b *testing.B) {
	dir := b.TempDir()
	for i := range 100 {
		writeFile(b, dir, fmt.Sprintf("team-%d/agent-%03d.md", i%5, i), agentText(fmt.Sprintf("agent-%03d", i), "idle"))
	}
	reg := registry.New(nil)
	f, err := Open(dir, reg, registry.Options{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	ch, cancel := reg.Subscribe()
	defer cancel()
	var took []time.Duration
	i := 0
	for b.Loop() {
		i++
		want := fmt.Sprintf("edit %d", i)
		start := time.Now()
		writeFile(b, dir, "team-0/agent-000.md", agentText("agent-000", want))
		deadline := time.After(waitLimit)
		for description(reg.Snapshot(), "agent-000") != want {
			select {
			case <-ch:
			case <-deadline:
				b.Fatalf("edit %d never reached the registry", i)
			}
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	var sum time.Duration
	for _, d := range took {
		sum += d
	}
	b.ReportMetric(ms(took[len(took)/2]), "median-ms")
	b.ReportMetric(ms(sum/time.Duration(len(took))), "mean-ms")
	b.ReportMetric(ms(took[len(took)*9/10]), "p90-ms")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkDelete10k measures how long after the last of 10,000 agent
// files (in 20 subfolders) is deleted by another program the registry
// shows none, with the default debounce (which is part of the figure).
func BenchmarkDelete10k(b *testing.B) {
	const n = 10000
	var took []time.Duration
	for b.Loop() {
		dir := b.TempDir()
		for i := range n {
			writeFile(b, dir, fmt.Sprintf("team-%02d/agent-%05d.md", i%20, i), agentText(fmt.Sprintf("agent-%05d", i), "idle"))
		}
		reg := registry.New(nil)
		f, err := Open(dir, reg, registry.Options{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		took = append(took, deleteAllAndWait(b, dir, reg, n))
		f.Close()
	}
	slices.Sort(took)
	b.ReportMetric(ms(took[len(took)/2]), "median-ms-to-empty")
	b.ReportMetric(ms(took[len(took)-1]), "max-ms-to-empty")
}

// deleteAllAndWait removes every agent file under dir one by one and
// returns how long after the last removal the registry held no files.
func deleteAllAndWait(t testing.TB, dir string, reg *registry.Registry, n int) time.Duration {
	t.Helper()
	if got := len(reg.Snapshot().Files()); got != n {
		t.Fatalf("loaded %d files, want %d", got, n)
	}
	ch, cancel := reg.Subscribe()
	defer cancel()
	deleteAllFiles(t, dir)
	last := time.Now()
	deadline := time.After(2 * time.Minute)
	for len(reg.Snapshot().Files()) != 0 {
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("the registry still holds %d files", len(reg.Snapshot().Files()))
		}
	}
	return time.Since(last)
}

// BenchmarkOutsideEditorLostEdits measures what no lock can rule out: an
// outside program that takes no lock and saves like an editor (read,
// temp file, "changed on disk?" look, rename) racing two serves. A save
// never keeps its version over the program's, but the program can read
// the file in the microseconds a save swaps its version in and back, and
// build on that. Reported as outside edits lost per 1,000.
func BenchmarkOutsideEditorLostEdits(b *testing.B) {
	const goroutines, edits, outside = 2, 50, 150
	lost, total := 0, 0
	for b.Loop() {
		_, n := raceSaves(b, goroutines, edits, outside, outsideEditor)
		lost += n
		total += outside
	}
	b.ReportMetric(1000*float64(lost)/float64(total), "lost-per-1000")
}

// deleteAllFiles removes every .md file under dir, one by one.
func deleteAllFiles(t testing.TB, dir string) {
	t.Helper()
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return nil
	})
	for _, p := range files {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
}
