package web

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/agentry/agentry/permissions"
)

// testEnv is a server over an in-memory folder, reached through a real HTTP
// client with a cookie jar, as a browser would.
type testEnv struct {
	t      *testing.T
	srv    *Server
	folder *memFolder
	http   *httptest.Server
	client *http.Client
}

func newTestEnv(t *testing.T, files map[string]string, mod ...func(*Config)) *testEnv {
	t.Helper()
	folder := newMemFolder(files)
	cfg := Config{Agents: folder.reg, Files: folder, Global: permissions.Rules{Allow: []string{"*"}},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, m := range mod {
		m(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); hs.Close() })
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &testEnv{t: t, srv: srv, folder: folder, http: hs, client: client}
}

// get fetches a page and returns its status and parsed document.
func (e *testEnv) get(path string) (int, *html.Node) {
	e.t.Helper()
	resp, err := e.client.Get(e.http.URL + path)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.parse(resp)
}

// post submits form values with the CSRF token of the last page.
func (e *testEnv) post(path string, v url.Values, csrf string) (int, *html.Node, *http.Response) {
	e.t.Helper()
	v = cloneValues(v)
	if csrf != "" {
		v.Set(csrfField, csrf)
	}
	resp, err := e.client.PostForm(e.http.URL+path, v)
	if err != nil {
		e.t.Fatal(err)
	}
	status, doc := e.parse(resp)
	return status, doc, resp
}

func (e *testEnv) parse(resp *http.Response) (int, *html.Node) {
	e.t.Helper()
	defer resp.Body.Close()
	doc, err := html.Parse(resp.Body)
	if err != nil {
		e.t.Fatal(err)
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

// find returns the first element with data-testid id, or nil.
func find(n *html.Node, id string) *html.Node {
	if n.Type == html.ElementNode && attr(n, "data-testid") == id {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, id); f != nil {
			return f
		}
	}
	return nil
}

// findAll returns every element whose data-testid starts with prefix.
func findAll(n *html.Node, prefix string) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && strings.HasPrefix(attr(n, "data-testid"), prefix) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func attr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, name string) bool {
	for _, a := range n.Attr {
		if a.Key == name {
			return true
		}
	}
	return false
}

// textOf is the element's text content, spaces collapsed.
func textOf(n *html.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// csrfOf reads the token the layout put in its meta tag.
func csrfOf(doc *html.Node) string {
	var tok string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "meta" && attr(n, "name") == "csrf-token" {
			tok = attr(n, "content")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return tok
}

// formValues collects what a browser would submit for a form: named inputs
// (checkboxes only when checked), textareas and selected options.
func formValues(form *html.Node) url.Values {
	v := url.Values{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			name := attr(n, "name")
			switch {
			case name == "":
			case n.Data == "input" && (attr(n, "type") == "checkbox" || attr(n, "type") == "radio"):
				if hasAttr(n, "checked") {
					v.Add(name, attr(n, "value"))
				}
			case n.Data == "input":
				v.Add(name, attr(n, "value"))
			case n.Data == "textarea":
				v.Add(name, rawText(n)) // the parser already dropped the first line break
			case n.Data == "select":
				v.Add(name, selected(n))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(form)
	return v
}

func rawText(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(c.Data)
	}
	return b.String()
}

func selected(sel *html.Node) string {
	first, found := "", false
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "option" {
			if !found && first == "" {
				first = attr(n, "value")
			}
			if hasAttr(n, "selected") && !found {
				first, found = attr(n, "value"), true
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(sel)
	return first
}
