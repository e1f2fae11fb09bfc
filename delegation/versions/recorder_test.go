package versions_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/versions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/sqlite"
)

// held is a store whose AddVersion waits until release is closed: a slow
// disk, so a test can see what a save does before its version is written.
type held struct {
	trace.VersionStore
	release chan struct{}
}

func (h held) AddVersion(ctx context.Context, v trace.Version) (bool, error) {
	<-h.release
	return h.VersionStore.AddVersion(ctx, v)
}

func openStore(t *testing.T) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(filepath.Join(t.TempDir(), "trace.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func change(i int) registry.FileChanged {
	return registry.FileChanged{Kind: registry.KindAgent, Name: "lead", Path: "lead.md",
		Data: fmt.Appendf(nil, "---\ndescription: Lead %d\n---\nBody.\n", i), Source: registry.SourceWeb}
}

func TestTheHookReturnsBeforeTheVersionIsWrittenAndReadsWaitForIt(t *testing.T) {
	store := openStore(t)
	slow := held{store, make(chan struct{})}
	rec := versions.New(slow, slog.New(slog.NewTextHandler(io.Discard, nil)))
	done := make(chan struct{})
	go func() {
		for i := range 3 {
			rec.Hook(change(i))
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the hook waited for the store")
	}
	if list, err := store.Versions(context.Background(), registry.KindAgent, "lead"); err != nil || len(list) != 0 {
		t.Fatalf("versions written before the store let them: %v, %v", list, err)
	}
	listed := make(chan []trace.Version)
	go func() {
		list, err := rec.Reads().Versions(context.Background(), registry.KindAgent, "lead")
		if err != nil {
			t.Error(err)
		}
		listed <- list
	}()
	select {
	case list := <-listed:
		t.Fatalf("Reads listed %d versions without waiting for the queued ones", len(list))
	case <-time.After(50 * time.Millisecond):
	}
	close(slow.release)
	list := <-listed
	if len(list) != 3 {
		t.Fatalf("Reads listed %d versions, want the 3 queued", len(list))
	}
	for i, v := range list { // newest first, in the order the hook saw them
		if want := registry.Hash(change(2 - i).Data); v.Hash != want || v.Source != "web" {
			t.Errorf("version %d is %s from %s, want %s from web", i, v.Hash, v.Source, want)
		}
	}
	if list[0].Summary != "description changed" || list[2].Summary != "created (4 lines)" {
		t.Errorf("summaries %q … %q", list[0].Summary, list[2].Summary)
	}
	if !list[1].Time.Before(list[0].Time) && !list[1].Time.Equal(list[0].Time) {
		t.Errorf("the versions' times are not the order they were seen: %v, %v", list[1].Time, list[0].Time)
	}
}

func TestAfterCloseAChangeIsRecordedBeforeItsHookReturns(t *testing.T) {
	store := openStore(t)
	rec := versions.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	rec.Hook(change(0))
	if err := rec.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if v, err := store.LatestVersion(context.Background(), registry.KindAgent, "lead"); err != nil || v.Hash != registry.Hash(change(0).Data) {
		t.Fatalf("after Close the newest version is %+v, %v: the queued change was not waited for", v, err)
	}
	rec.Hook(change(1))
	if v, err := store.LatestVersion(context.Background(), registry.KindAgent, "lead"); err != nil || v.Hash != registry.Hash(change(1).Data) {
		t.Fatalf("a change after Close is not recorded when its hook returns: %+v, %v", v, err)
	}
}

func TestRecordComesAfterTheQueuedChanges(t *testing.T) {
	store := openStore(t)
	rec := versions.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	rec.Hook(change(0))
	fc := change(0)
	fc.Source = registry.SourceFiles // the catch-up seeing the same content
	if err := rec.Record(context.Background(), fc); err != nil {
		t.Fatal(err)
	}
	list, err := store.Versions(context.Background(), registry.KindAgent, "lead")
	if err != nil || len(list) != 1 || list[0].Source != "web" {
		t.Fatalf("versions %+v, %v: want the one the web save queued, not the catch-up's", list, err)
	}
}

// panicky is a store whose first AddVersion panics, as a broken driver
// might.
type panicky struct {
	trace.VersionStore
	calls *int
}

func (p panicky) AddVersion(ctx context.Context, v trace.Version) (bool, error) {
	*p.calls++
	if *p.calls == 1 {
		panic("driver exploded")
	}
	return p.VersionStore.AddVersion(ctx, v)
}

func TestAPanicWhileRecordingIsLoggedAndTheNextChangeIsRecorded(t *testing.T) {
	store := openStore(t)
	var logged strings.Builder
	rec := versions.New(panicky{store, new(int)}, slog.New(slog.NewTextHandler(&logged, nil)))
	rec.Hook(change(0))
	rec.Hook(change(1))
	if err := rec.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logged.String(), "driver exploded") {
		t.Errorf("the panic was not logged:\n%s", logged.String())
	}
	vs, err := store.Versions(t.Context(), registry.KindAgent, "lead")
	if err != nil || len(vs) != 1 || vs[0].Hash != registry.Hash(change(1).Data) {
		t.Errorf("versions = %+v, %v; want the second change's", vs, err)
	}
}
