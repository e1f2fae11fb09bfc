package websearch

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/tool"
)

// searxngAnswer is a SearXNG /search?format=json answer, fields as the
// instance sends them.
const searxngAnswer = `{"query": "golang sandbox", "number_of_results": 0,
 "results": [
  {"url": "https://go.dev/", "title": "The Go Programming Language", "content": "Go is an open source programming language.",
   "engine": "duckduckgo", "parsed_url": ["https", "go.dev", "/", "", "", ""], "template": "default.html",
   "engines": ["duckduckgo", "brave"], "positions": [1, 2], "score": 4.0, "category": "general"},
  {"url": "https://github.com/containers/bubblewrap", "title": "containers/bubblewrap", "content": "Low-level unprivileged sandboxing tool.",
   "engine": "brave", "engines": ["brave"], "positions": [3], "score": 0.3, "category": "general", "publishedDate": null},
  {"url": "https://example.org/3", "title": "Third", "content": "", "engine": "bing", "score": 0.1, "category": "general"}],
 "answers": [], "corrections": [], "infoboxes": [], "suggestions": ["golang sandbox linux"], "unresponsive_engines": [["google", "timeout"]]}`

// braveAnswer is a Brave Web Search API answer (trimmed to what a real one
// holds for two hits).
const braveAnswer = `{"type": "search",
 "query": {"original": "golang sandbox", "show_strict_warning": false, "is_navigational": false, "more_results_available": true},
 "mixed": {"type": "mixed", "main": [{"type": "web", "index": 0, "all": false}]},
 "web": {"type": "search", "family_friendly": true, "results": [
  {"title": "The <strong>Go</strong> Programming Language", "url": "https://go.dev/", "is_source_local": false, "is_source_both": false,
   "description": "<strong>Go</strong> is an open source programming language &amp; more.", "profile": {"name": "Go", "url": "https://go.dev/"},
   "language": "en", "family_friendly": true, "type": "search_result", "subtype": "generic", "meta_url": {"scheme": "https", "netloc": "go.dev", "hostname": "go.dev"}},
  {"title": "bubblewrap", "url": "https://github.com/containers/bubblewrap", "description": "Low-level <strong>sandboxing</strong> tool.", "age": "2 days ago",
   "type": "search_result", "subtype": "generic"}]}}`

func call(t *testing.T, a tool.Availability, args string) ([]Result, error) {
	t.Helper()
	if !a.Ok() {
		t.Fatalf("tool unavailable: %s", a.Reason)
	}
	out, err := a.Tool.Call(context.Background(), json.RawMessage(args))
	if err != nil {
		return nil, err
	}
	var res []Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("result %q: %v", out, err)
	}
	return res, nil
}

func TestSearXNG(t *testing.T) {
	var got *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		if r.URL.Path != "/search" || r.URL.Query().Get("format") != "json" {
			http.Error(w, "not the JSON API", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(searxngAnswer))
	}))
	defer srv.Close()
	res, err := call(t, New(Config{Backend: SearXNG, URL: srv.URL + "/"}), `{"query":"golang sandbox","max_results":2}`)
	if err != nil {
		t.Fatal(err)
	}
	want := []Result{
		{"The Go Programming Language", "https://go.dev/", "Go is an open source programming language."},
		{"containers/bubblewrap", "https://github.com/containers/bubblewrap", "Low-level unprivileged sandboxing tool."},
	}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("results %+v, want %+v", res, want)
	}
	if q := got.URL.Query().Get("q"); q != "golang sandbox" {
		t.Errorf("query sent as %q", q)
	}
}

func TestSearXNGWithoutJSONFormatSaysWhatToFix(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "403 Forbidden", http.StatusForbidden)
	}))
	defer srv.Close()
	_, err := call(t, New(Config{Backend: SearXNG, URL: srv.URL}), `{"query":"x"}`)
	if err == nil || !strings.Contains(err.Error(), "search.formats") {
		t.Fatalf("error = %v; want a hint about search.formats", err)
	}
}

// A search service answering 5xx has failed, which a circuit breaker
// counts (tool.ErrUnavailable); a 403 is the configuration's, not marked.
func TestAServerErrorIsMarkedUnavailable(t *testing.T) {
	for _, c := range []struct {
		code        int
		unavailable bool
	}{{http.StatusBadGateway, true}, {http.StatusForbidden, false}} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, http.StatusText(c.code), c.code)
		}))
		_, err := call(t, New(Config{Backend: SearXNG, URL: srv.URL}), `{"query":"x"}`)
		srv.Close()
		if err == nil || errors.Is(err, tool.ErrUnavailable) != c.unavailable {
			t.Errorf("HTTP %d: error %v, marked unavailable: %v, want %v", c.code, err, errors.Is(err, tool.ErrUnavailable), c.unavailable)
		}
	}
}

func TestBrave(t *testing.T) {
	var got *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		if r.Header.Get("X-Subscription-Token") != "token-1" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","status":401}}`))
			return
		}
		if r.URL.Path != "/res/v1/web/search" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(braveAnswer))
	}))
	defer srv.Close()
	res, err := call(t, New(Config{Backend: Brave, URL: srv.URL, APIKey: "token-1"}), `{"query":"golang sandbox","max_results":5}`)
	if err != nil {
		t.Fatal(err)
	}
	want := []Result{
		{"The Go Programming Language", "https://go.dev/", "Go is an open source programming language & more."},
		{"bubblewrap", "https://github.com/containers/bubblewrap", "Low-level sandboxing tool."},
	}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("results %+v, want %+v", res, want)
	}
	if got.URL.Query().Get("count") != "5" || got.URL.Query().Get("q") != "golang sandbox" || got.Header.Get("Accept") != "application/json" {
		t.Errorf("request %s with headers %v", got.URL, got.Header)
	}
	_, err = call(t, New(Config{Backend: Brave, URL: srv.URL, APIKey: "wrong"}), `{"query":"x"}`)
	if err == nil || !strings.Contains(err.Error(), "HTTP 401") {
		t.Errorf("a refused token: error = %v", err)
	}
}

func TestUnconfiguredIsUnavailableWithAReason(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no backend", Config{}, "no search backend configured"},
		{"searxng without a URL", Config{Backend: SearXNG}, "web_search.url is required"},
		{"brave without a key", Config{Backend: Brave}, "web_search.api_key is required"},
		{"an unknown backend", Config{Backend: "google", URL: "http://x"}, `"google"`},
		{"a relative URL", Config{Backend: SearXNG, URL: "searx.local"}, "not an absolute http(s) URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := New(tt.cfg)
			if a.Ok() || a.Name != Name || !strings.Contains(a.Reason, tt.want) {
				t.Fatalf("New = %+v; want unavailable because %q", a, tt.want)
			}
		})
	}
}

func TestBadArgumentsAreReported(t *testing.T) {
	a := New(Config{Backend: SearXNG, URL: "http://127.0.0.1:1"})
	for _, raw := range []string{`{}`, `{"query":" "}`, `{"query":"x","max_results":0}`, `{"query":"x","max_results":21}`, `{"q":"x"}`} {
		if _, err := a.Tool.Call(context.Background(), json.RawMessage(raw)); !errors.Is(err, tool.ErrInvalidArgs) {
			t.Errorf("Call(%s) error = %v; want ErrInvalidArgs", raw, err)
		}
	}
}
