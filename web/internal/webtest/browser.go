package webtest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/delegation/versions"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
	"github.com/agentry/agentry/trace"

	"github.com/agentry/agentry/web"
)

// This file is the end-to-end harness: a real server on 127.0.0.1:0 over a
// real, watched agents folder, driven by headless Chromium. The runs pages
// reuse StartBrowserServer, NewBrowser and the browser helpers.

// ArtifactsDir receives screenshots of the main pages (gitignored).
const ArtifactsDir = "testdata/artifacts"

// browserTimeout bounds one browser test, so a hung page fails instead of
// stalling the suite.
const browserTimeout = 90 * time.Second

// BrowserServer is a running UI over a temporary agents folder.
type BrowserServer struct {
	URL    string // http://127.0.0.1:PORT
	Dir    string // the agents folder on Disk
	Server *web.Server
	Agents *registry.Registry
	Folder *folder.Folder
}

// StartBrowserServer writes files into a fresh agents folder, watches it and
// serves the UI on 127.0.0.1:0 until the test ends. mod adjusts the Config
// (part 2 sets Runs and Runtime here).
func StartBrowserServer(t *testing.T, files map[string]string, mod ...func(*web.Config)) *BrowserServer {
	t.Helper()
	return startBrowserServer(t, files, nil, mod...)
}

// startBrowserServer is StartBrowserServer whose agents folder hands its
// changes to versions when that is not nil, as serve's does.
func startBrowserServer(t *testing.T, files map[string]string, store trace.VersionStore, mod ...func(*web.Config)) *BrowserServer {
	t.Helper()
	dir := t.TempDir()
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	reg := registry.New(nil)
	contents := folder.Agents(reg, registry.Options{})
	var rec *versions.Recorder
	if store != nil { // as serve records them (cmd/agentry/versions.go)
		rec = versions.New(store, log)
		t.Cleanup(func() { rec.Close(context.Background()) })
		contents = folder.VersionedAgents(reg, registry.Options{}, rec.Hook)
	}
	f, err := folder.OpenContents(dir, contents, folder.Config{Log: log})
	if err != nil {
		t.Fatal(err)
	}
	cfg := web.Config{Agents: reg, Files: folder.Sourced(f, registry.SourceWeb), Global: permissions.Rules{Allow: []string{"*"}}, Models: []string{"demo"}, Log: log, AgentsDir: dir}
	if rec != nil { // what is there at start is a version, as serve records it; the pages read after the queue
		snap := reg.Snapshot()
		for _, file := range snap.Files() {
			data, _ := snap.Raw(file.Path)
			if err := rec.Record(context.Background(), registry.FileChanged{Kind: registry.KindAgent, Name: file.Agent, Path: file.Path, Data: data, Source: registry.SourceFiles}); err != nil {
				t.Fatal(err)
			}
		}
		cfg.Versions = rec.Reads()
	}
	for _, m := range mod {
		m(&cfg)
	}
	srv, err := web.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	hs.RegisterOnShutdown(srv.Close)
	go hs.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(ctx)
		f.Close()
	})
	return &BrowserServer{URL: "http://" + ln.Addr().String(), Dir: dir, Server: srv, Agents: reg, Folder: f}
}

// chromiumPath finds the browser: $AGENTRY_CHROMIUM, then the usual names.
// Browser tests fail (never skip) without one, so CI cannot pass silently.
func chromiumPath(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("AGENTRY_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("headless Chromium not found: install Debian's chromium (apt-get install -y chromium, as .ci/Run does) or set AGENTRY_CHROMIUM to a Chrome binary")
	return ""
}

// NewBrowser starts a headless Chromium with a fresh profile and returns a
// tab's context, closed when the test ends.
func NewBrowser(t testing.TB) context.Context {
	t.Helper()
	profile, err := os.MkdirTemp("", "agentry-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 900),
	}
	timeout := browserTimeout
	if _, ok := t.(*testing.B); ok { // a benchmark opens big pages several times
		timeout = 10 * time.Minute
	}
	ctx, cancelTimeout := context.WithTimeout(context.Background(), timeout)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tab, cancelTab := chromedp.NewContext(alloc)
	if err := chromedp.Do(tab); err != nil {
		cancelTab()
		cancelAlloc()
		cancelTimeout()
		t.Fatalf("start headless Chromium: %v", err)
	}
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		cancelTimeout()
		for range 50 { // Chromium's helpers may still write for a moment
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	return tab
}

// TID selects an element by its data-testid.
func TID(id string) chromedp.CSS { return chromedp.CSS(`[data-testid="` + id + `"]`) }

// Run runs browser steps and fails the test on the first error. It starts
// from chromedp's view of the page's current document (settle).
func Run(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	settle(ctx)
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// settle waits until chromedp can query the page's document. After a page
// load a test saw by evaluating (WaitText, Follow), chromedp may still hold
// the document that went, and a query then fails with "No node with given
// id found" (it did once under load, filling a form after a save); a query
// of body that fails so is asked again, which is safe since it changes
// nothing. Any other outcome is left to the steps that follow.
func settle(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	for {
		err := chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS("body")))
		if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), "node with given id") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Follow clicks sel (a link, a submit button) and waits until the page it
// leads to shows the element with data-testid id. It waits by evaluating,
// as WaitText does: a query that runs while the old document goes (a
// chromedp.WaitReady in the same Run) can fail with "Could not find node
// with given id".
func Follow(t *testing.T, ctx context.Context, sel chromedp.CSS, id string) {
	t.Helper()
	Run(t, ctx, chromedp.Click(sel))
	WaitJS(t, ctx, fmt.Sprintf(`!!document.querySelector('[data-testid=%q]')`, id), "[data-testid="+id+"] on the next page")
}

// WaitText waits until the element with data-testid id contains want. It
// polls with short evaluations, so a page load in between (a form submit)
// does not end the wait.
func WaitText(t *testing.T, ctx context.Context, id, want string) {
	t.Helper()
	expr := fmt.Sprintf(`(() => { const e = document.querySelector('[data-testid=%q]'); return !!e && e.textContent.includes(%q); })()`, id, want)
	WaitJS(t, ctx, expr, fmt.Sprintf("%q in [data-testid=%s]", want, id))
}

// WaitJS waits until a JavaScript expression is true on the current page.
func WaitJS(t *testing.T, ctx context.Context, expr, what string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr)); err == nil && ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	t.Fatalf("waited 15s for %s\npage text:\n%s", what, got)
}

// Screenshot saves the whole page as testdata/artifacts/NAME.png.
func Screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	// A form post or an htmx swap may still be replacing the document: a
	// Screenshot then fails with "0 width". Wait until a laid-out page is
	// there, and try again for a moment if it went away in between.
	var png []byte
	var err error
	for attempt := 0; attempt < 20; attempt++ {
		WaitJS(t, ctx, `document.readyState === "complete" && document.body && document.body.getBoundingClientRect().width > 0`, "a laid-out page to screenshot")
		if png, err = chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(ArtifactsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ArtifactsDir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// ReadAgentFile reads a file of the served agents folder.
func (b *BrowserServer) ReadAgentFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(b.Dir, filepath.FromSlash(path)))
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return string(data)
}

// WriteAgentFile changes the folder behind the UI's back, as an editor would.
func (b *BrowserServer) WriteAgentFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(b.Dir, filepath.FromSlash(path)), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// WaitRegistry waits until the registry serves path with exactly data.
func (b *BrowserServer) WaitRegistry(t *testing.T, path, data string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if f, ok := b.Agents.Snapshot().File(path); ok && f.Hash == registry.Hash([]byte(data)) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the registry never saw the new %s", path)
}
