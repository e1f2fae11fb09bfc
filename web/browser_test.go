package web

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
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
)

// This file is the end-to-end harness: a real server on 127.0.0.1:0 over a
// real, watched agents folder, driven by headless Chromium. The runs pages
// reuse startBrowserServer, newBrowser and the browser helpers.

// artifactsDir receives screenshots of the main pages (gitignored).
const artifactsDir = "testdata/artifacts"

// browserTimeout bounds one browser test, so a hung page fails instead of
// stalling the suite.
const browserTimeout = 90 * time.Second

// browserServer is a running UI over a temporary agents folder.
type browserServer struct {
	URL    string // http://127.0.0.1:PORT
	Dir    string // the agents folder on disk
	Server *Server
	Agents *registry.Registry
	Folder *folder.Folder
}

// startBrowserServer writes files into a fresh agents folder, watches it and
// serves the UI on 127.0.0.1:0 until the test ends. mod adjusts the Config
// (part 2 sets Runs and Runtime here).
func startBrowserServer(t *testing.T, files map[string]string, mod ...func(*Config)) *browserServer {
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
	f, err := folder.Open(dir, reg, registry.Options{}, log)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Agents: reg, Files: f, Global: permissions.Rules{Allow: []string{"*"}}, Models: []string{"demo"}, Log: log}
	for _, m := range mod {
		m(&cfg)
	}
	srv, err := New(cfg)
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
	return &browserServer{URL: "http://" + ln.Addr().String(), Dir: dir, Server: srv, Agents: reg, Folder: f}
}

// chromiumPath finds the browser: $AGENTRY_CHROMIUM, then the usual names.
// Browser tests fail (never skip) without one, so CI cannot pass silently.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("AGENTRY_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("headless Chromium not found: install Debian's chromium (apt-get install -y chromium, as .ci/run does) or set AGENTRY_CHROMIUM to a Chrome binary")
	return ""
}

// newBrowser starts a headless Chromium with a fresh profile and returns a
// tab's context, closed when the test ends.
func newBrowser(t *testing.T) context.Context {
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
	ctx, cancelTimeout := context.WithTimeout(context.Background(), browserTimeout)
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

// tid selects an element by its data-testid.
func tid(id string) chromedp.CSS { return chromedp.CSS(`[data-testid="` + id + `"]`) }

// run runs browser steps and fails the test on the first error.
func run(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// waitText waits until the element with data-testid id contains want. It
// polls with short evaluations, so a page load in between (a form submit)
// does not end the wait.
func waitText(t *testing.T, ctx context.Context, id, want string) {
	t.Helper()
	expr := fmt.Sprintf(`(() => { const e = document.querySelector('[data-testid=%q]'); return !!e && e.textContent.includes(%q); })()`, id, want)
	waitJS(t, ctx, expr, fmt.Sprintf("%q in [data-testid=%s]", want, id))
}

// waitJS waits until a JavaScript expression is true on the current page.
func waitJS(t *testing.T, ctx context.Context, expr, what string) {
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

// screenshot saves the whole page as testdata/artifacts/NAME.png.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	// A form post or an htmx swap may still be replacing the document: a
	// screenshot then fails with "0 width". Wait until a laid-out page is
	// there, and try again for a moment if it went away in between.
	var png []byte
	var err error
	for attempt := 0; attempt < 20; attempt++ {
		waitJS(t, ctx, `document.readyState === "complete" && document.body && document.body.getBoundingClientRect().width > 0`, "a laid-out page to screenshot")
		if png, err = chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(artifactsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(artifactsDir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// readAgentFile reads a file of the served agents folder.
func (b *browserServer) readAgentFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(b.Dir, filepath.FromSlash(path)))
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return string(data)
}

// writeAgentFile changes the folder behind the UI's back, as an editor would.
func (b *browserServer) writeAgentFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(b.Dir, filepath.FromSlash(path)), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitRegistry waits until the registry serves path with exactly data.
func (b *browserServer) waitRegistry(t *testing.T, path, data string) {
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
