// Package webtest holds what the web packages' tests share: a server over an
// in-memory agents folder reached through a real HTTP client, a headless
// browser harness, HTML helpers that find elements by data-testid, and the
// agents the tests use. Only tests import it.
package webtest

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"testing"

	"golang.org/x/net/html"

	"github.com/agentry/agentry/permissions"

	"github.com/agentry/agentry/web"

	"github.com/agentry/agentry/web/core"

	"github.com/agentry/agentry/web/internal/dom"
)

// Env is a server over an in-memory folder, reached through a real HTTP
// client with a cookie jar, as a browser would.
type Env struct {
	T      *testing.T
	Config web.Config // what the server was built with
	Server *web.Server
	Folder *MemFolder
	HTTP   *httptest.Server
	Client *http.Client
}

func NewEnv(t *testing.T, files map[string]string, mod ...func(*web.Config)) *Env {
	t.Helper()
	folder := NewMemFolder(files)
	cfg := web.Config{Agents: folder.Reg, Files: folder, Global: permissions.Rules{Allow: []string{"*"}},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, m := range mod {
		m(&cfg)
	}
	srv, err := web.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); hs.Close() })
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &Env{T: t, Config: cfg, Server: srv, Folder: folder, HTTP: hs, Client: client}
}

// Get fetches a page and returns its status and parsed document.
func (e *Env) Get(path string) (int, *html.Node) {
	e.T.Helper()
	resp, err := e.Client.Get(e.HTTP.URL + path)
	if err != nil {
		e.T.Fatal(err)
	}
	return e.Parse(resp)
}

// Post submits form values with the CSRF token of the last page.
func (e *Env) Post(path string, v url.Values, csrf string) (int, *html.Node, *http.Response) {
	e.T.Helper()
	v = cloneValues(v)
	if csrf != "" {
		v.Set(core.CSRFFieldName, csrf)
	}
	resp, err := e.Client.PostForm(e.HTTP.URL+path, v)
	if err != nil {
		e.T.Fatal(err)
	}
	status, doc := e.Parse(resp)
	return status, doc, resp
}

func (e *Env) Parse(resp *http.Response) (int, *html.Node) {
	e.T.Helper()
	defer resp.Body.Close()
	doc, err := html.Parse(resp.Body)
	if err != nil {
		e.T.Fatal(err)
	}
	return resp.StatusCode, doc
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// EditForm opens an agent's editor and returns what its form would submit.
func (e *Env) EditForm(name string) (url.Values, string) {
	e.T.Helper()
	status, doc := e.Get("/agents/" + name)
	if status != http.StatusOK {
		e.T.Fatalf("GET /agents/%s = %d", name, status)
	}
	form := dom.Find(doc, "agent-form")
	if form == nil {
		e.T.Fatalf("no agent form for %s: %s", name, dom.TextOf(doc))
	}
	return dom.FormValues(form), dom.CSRFOf(doc)
}
