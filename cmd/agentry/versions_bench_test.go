package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
	"github.com/agentry/agentry/trace/sqlite"
)

// BenchmarkSaveWithVersions measures what versions add to a save: the
// editor's compare-and-swap save of research-coordinator.md (a synced temp
// file swapped in) into two folders on one disk, one plain and one whose
// changes become versions in a SQLite store (as serve wires them),
// alternating, one save each per iteration, each a new content. It
// reports the median wall time of a save each way and their ratio: wall
// time, since a save's cost is mostly the sync, which CPU time leaves out.
// A version is recorded off the save's path (delegation/versions); after
// each pair of saves the benchmark records it at once, untimed, and
// reports that apart (µs/version-recorded), so neither save is timed
// against the recording; which save comes first alternates. After every
// save it also lets the watchers settle, untimed.
func BenchmarkSaveWithVersions(b *testing.B) {
	data, err := os.ReadFile("../../agents/research-coordinator.md")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	store, err := sqlite.Open(filepath.Join(dir, "trace.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	log := slog.New(slog.DiscardHandler)
	versions := newVersionRecorder(store, log)
	open := func(name string, rec *versionRecorder) (*folder.Writer, string) {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(path, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(path, "research-coordinator.md"), data, 0o644); err != nil {
			b.Fatal(err)
		}
		f, err := folder.OpenContents(path, agentContents(registry.New(nil), registry.Options{}, rec), folder.Config{Log: log})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { f.Close() })
		return folder.Sourced(f, registry.SourceWeb), registry.Hash(data)
	}
	plain, plainHash := open("plain", nil)
	versioned, versionedHash := open("versioned", versions)
	i := 0
	save := func(w *folder.Writer, hash *string) time.Duration {
		i++
		next := fmt.Appendf(slices.Clip(data), "\nEdit %d.\n", i)
		start := time.Now()
		h, err := w.Write("research-coordinator.md", next, *hash)
		took := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		*hash = h
		return took
	}
	// settle lets each folder's watcher see the save before the next one,
	// so neither save is timed against the other's watcher.
	settle := func() { time.Sleep(settleFor) }
	var with, without, recorded []time.Duration
	timed := func(w *folder.Writer, hash *string, into *[]time.Duration) {
		b.StartTimer()
		*into = append(*into, save(w, hash))
		b.StopTimer()
		settle()
	}
	for n := 0; b.Loop(); n++ {
		b.StopTimer()
		// Which save follows the last recording alternates, so neither is
		// timed against the disk work the recording left behind.
		if n%2 == 0 {
			timed(versioned, &versionedHash, &with)
			timed(plain, &plainHash, &without)
		} else {
			timed(plain, &plainHash, &without)
			timed(versioned, &versionedHash, &with)
		}
		start := time.Now()
		if err := versions.Flush(context.Background()); err != nil {
			b.Fatal(err)
		}
		recorded = append(recorded, time.Since(start))
		settle()
		b.StartTimer()
	}
	list, err := versions.Reads().Versions(context.Background(), registry.KindAgent, "research-coordinator")
	if err != nil || len(list) < len(with) {
		b.Fatalf("%d versions stored for %d saves: %v", len(list), len(with), err)
	}
	if list[0].Hash != versionedHash || list[0].Source != string(registry.SourceWeb) {
		b.Fatalf("the newest version is %+v, want the last save's", list[0])
	}
	b.ReportMetric(float64(medianOf(with).Microseconds()), "µs/save-with-versions")
	b.ReportMetric(float64(medianOf(without).Microseconds()), "µs/save-without")
	b.ReportMetric(float64(medianOf(recorded).Microseconds()), "µs/version-recorded")
	b.ReportMetric(float64(medianOf(with))/float64(medianOf(without)), "ratio")
}

// settleFor is how long the benchmark waits after each save.
var settleFor = 5 * time.Millisecond

func medianOf(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
