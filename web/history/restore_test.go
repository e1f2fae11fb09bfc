package history_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/net/html"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
	"github.com/agentry/agentry/web/history"
	"github.com/agentry/agentry/web/internal/dom"
)

// diskFiles saves with the folder's compare-and-swap: the file on disk
// must still have the hash the page showed.
type diskFiles struct{ dir string }

func (d diskFiles) WriteNoted(path string, data []byte, expectHash, note string) (string, error) {
	p := filepath.Join(d.dir, path)
	if cur, err := os.ReadFile(p); err != nil || registry.Hash(cur) != expectHash {
		return "", registry.ErrConflict
	}
	return registry.Hash(data), os.WriteFile(p, data, 0o644)
}

// A restore refused because another program wrote the file offers, on the
// page that says so, to restore over what the disk holds now, even while
// the folder's watcher has not seen that write yet.
func TestARefusedRestoreExpectsTheFileAsItIsOnDisk(t *testing.T) {
	const v1, seen, onDisk = "workflow: {name: w}\n# one\n", "workflow: {name: w}\n# two\n", "workflow: {name: w}\n# three\n"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "w.yaml"), []byte(onDisk), 0o644); err != nil {
		t.Fatal(err)
	}
	store := memory.New()
	for i, text := range []string{v1, seen} {
		v := trace.Version{Kind: registry.KindWorkflow, Name: "w", Path: "w.yaml", Hash: registry.Hash([]byte(text)), Content: []byte(text),
			Time: time.Unix(int64(i+1), 0), Source: "filesystem"}
		if _, err := store.AddVersion(context.Background(), v); err != nil {
			t.Fatal(err)
		}
	}
	files := diskFiles{dir}
	watcherSaw := func(string) (history.File, bool) { // the snapshot lags: it still has "seen"
		return history.File{Name: "w", Path: "w.yaml", Hash: registry.Hash([]byte(seen)), Data: []byte(seen), Dir: dir, Files: files}, true
	}
	p := history.New(history.Config{Kind: registry.KindWorkflow, Base: "/workflows", Editor: "/edit", Current: watcherSaw, Versions: store})
	e := echo.New()
	e.POST("/workflows/:name/history/restore", p.Restore)
	restore := func(fileHash string) *httptest.ResponseRecorder {
		form := url.Values{"hash": {registry.Hash([]byte(v1))}, "file_hash": {fileHash}}
		req := httptest.NewRequest(http.MethodPost, "/workflows/w/history/restore", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		return rec
	}
	rec := restore(registry.Hash([]byte(seen)))
	want := `name="file_hash" value="` + registry.Hash([]byte(onDisk)) + `"`
	if rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), want) {
		t.Fatalf("a restore over a file changed on disk = %d; want 409 with restore forms expecting the disk's hash (%s)", rec.Code, want)
	}
	if rec := restore(registry.Hash([]byte(onDisk))); rec.Code != http.StatusSeeOther {
		t.Fatalf("the restore offered after the refusal = %d %s, want 303", rec.Code, rec.Body)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "w.yaml")); string(got) != v1 {
		t.Errorf("after the restore the file is %q, want version 1", got)
	}
}

// After a restore the file holds an older version's content again: that
// older row is no version to restore or diff with (it is the file now), and
// each other content is offered once.
func TestTheHistoryOffersOnlyContentThatIsNotTheFileNow(t *testing.T) {
	const v1, v2 = "workflow: {name: w}\n# one\n", "workflow: {name: w}\n# two\n"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "w.yaml"), []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	store := memory.New()
	for i, text := range []string{v1, v2, v1, v2, v1} { // edited, undone, redone, restored
		v := trace.Version{Kind: registry.KindWorkflow, Name: "w", Path: "w.yaml", Hash: registry.Hash([]byte(text)), Content: []byte(text),
			Time: time.Unix(int64(i+1), 0), Source: "filesystem"}
		if _, err := store.AddVersion(context.Background(), v); err != nil {
			t.Fatal(err)
		}
	}
	current := func(string) (history.File, bool) {
		return history.File{Name: "w", Path: "w.yaml", Hash: registry.Hash([]byte(v1)), Data: []byte(v1), Dir: dir, Files: diskFiles{dir}}, true
	}
	p := history.New(history.Config{Kind: registry.KindWorkflow, Base: "/workflows", Editor: "/edit", Current: current, Versions: store})
	e := echo.New()
	e.GET("/workflows/:name/history", p.History)
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/workflows/w/history", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET history = %d %s", rec.Code, rec.Body)
	}
	doc, err := html.Parse(strings.NewReader(rec.Body.String()))
	if err != nil {
		t.Fatal(err)
	}
	var restores []string
	for _, f := range dom.FindAll(doc, "restore-form") {
		restores = append(restores, dom.Attr(f, "data-hash"))
	}
	if want := []string{registry.Hash([]byte(v2))}; !slices.Equal(restores, want) {
		t.Errorf("restore buttons for %q, want only version two's %q", restores, want)
	}
	for _, row := range dom.FindAll(doc, "version") {
		if dom.Attr(row, "data-testid") != "version" { // the table, "versions"
			continue
		}
		hasDiff := dom.Find(row, "diff-current") != nil
		if isTwo := dom.Attr(row, "data-hash") == registry.Hash([]byte(v2)); hasDiff != isTwo {
			t.Errorf("row %s: diff with current = %v, want it only on version two's rows", dom.Attr(row, "data-hash")[:12], hasDiff)
		}
	}
}
