// Package websearch is the built-in web.search tool: {query, max_results?}
// → [{title, url, snippet}] through a configured search backend speaking its
// real API: SearXNG's JSON API (GET /search?q=...&format=json; the instance
// must list "json" under search.formats in its settings.yml) or Brave
// Search's Web Search API (GET /res/v1/web/search with the
// X-Subscription-Token header). Without a backend the tool is unavailable,
// with a reason saying what to configure.
package websearch

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
)

// Name is the tool's name.
const Name = "web.search"

// Backends.
const (
	SearXNG = "searxng"
	Brave   = "brave"
)

// Defaults for a zero Config field.
const (
	DefaultMaxResults = 10
	// MaxResults is the most a call may ask for (Brave's count limit).
	MaxResults     = 20
	DefaultTimeout = 20 * time.Second
	// DefaultBraveURL is Brave Search's API root.
	DefaultBraveURL = "https://api.search.brave.com"
)

// Config says which backend answers and how to reach it.
type Config struct {
	// Backend is "searxng" or "brave"; empty leaves the tool unconfigured.
	Backend string
	// URL is the SearXNG instance's root (required for searxng), or Brave's
	// API root (DefaultBraveURL when empty).
	URL string
	// APIKey is Brave's subscription token (required for brave).
	APIKey string
	// Client does the requests; nil means a new http.Client.
	Client *http.Client
	// Timeout bounds one search; 0 means DefaultTimeout.
	Timeout time.Duration
}

// Result is one hit.
type Result struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// New returns web.search, or unavailable with what is missing.
func New(cfg Config) tool.Availability {
	if err := cfg.check(); err != nil {
		return tool.Unavailable(Name, err.Error())
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Backend == Brave && cfg.URL == "" {
		cfg.URL = DefaultBraveURL
	}
	cfg.URL = strings.TrimRight(cfg.URL, "/")
	return tool.Available(tool.Typed(model.Tool{
		Name:        Name,
		Description: fmt.Sprintf("Search the web (%s) and return up to max_results hits as [{title, url, snippet}].", cfg.Backend),
		Parameters: tool.Schema(map[string]string{
			"query":       `{"type":"string","minLength":1,"description":"the search query"}`,
			"max_results": fmt.Sprintf(`{"type":"integer","minimum":1,"maximum":%d,"description":"default %d"}`, MaxResults, DefaultMaxResults),
		}, "query"),
	}, cfg.search))
}

// check says what a configuration lacks.
func (cfg Config) check() error {
	switch cfg.Backend {
	case "":
		return fmt.Errorf("no search backend configured: set web_search: {backend: searxng, url: URL} or {backend: brave, api_key: KEY}")
	case SearXNG:
		if cfg.URL == "" {
			return fmt.Errorf("web_search.url is required for the searxng backend (the instance's root, e.g. http://127.0.0.1:8888)")
		}
	case Brave:
		if cfg.APIKey == "" {
			return fmt.Errorf("web_search.api_key is required for the brave backend (a Brave Search API subscription token)")
		}
	default:
		return fmt.Errorf("web_search.backend %q: want searxng or brave", cfg.Backend)
	}
	if cfg.URL != "" {
		if u, err := url.Parse(cfg.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("web_search.url %q is not an absolute http(s) URL", cfg.URL)
		}
	}
	return nil
}

// searchArgs are web.search's arguments.
type searchArgs struct {
	Query      string `json:"query"`
	MaxResults *int   `json:"max_results"`
}

func (cfg Config) search(ctx context.Context, a searchArgs) (string, error) {
	if strings.TrimSpace(a.Query) == "" {
		return "", fmt.Errorf("%w: query is required", tool.ErrInvalidArgs)
	}
	n := DefaultMaxResults
	if a.MaxResults != nil {
		if *a.MaxResults < 1 || *a.MaxResults > MaxResults {
			return "", fmt.Errorf("%w: max_results %d is outside 1..%d", tool.ErrInvalidArgs, *a.MaxResults, MaxResults)
		}
		n = *a.MaxResults
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	var res []Result
	var err error
	if cfg.Backend == Brave {
		res, err = cfg.brave(ctx, a.Query, n)
	} else {
		res, err = cfg.searxng(ctx, a.Query)
	}
	if err != nil {
		return "", err
	}
	if len(res) > n {
		res = res[:n]
	}
	if res == nil {
		res = []Result{}
	}
	out, err := json.Marshal(res)
	return string(out), err
}

// searxng asks a SearXNG instance's JSON API; it has no result count
// parameter, so the caller cuts the page.
func (cfg Config) searxng(ctx context.Context, q string) ([]Result, error) {
	var body struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	u := cfg.URL + "/search?" + url.Values{"q": {q}, "format": {"json"}}.Encode()
	if err := cfg.get(ctx, u, nil, &body); err != nil {
		return nil, err
	}
	out := make([]Result, 0, len(body.Results))
	for _, r := range body.Results {
		out = append(out, Result{Title: r.Title, URL: r.URL, Snippet: r.Content})
	}
	return out, nil
}

// brave asks Brave Search's Web Search API for n results.
func (cfg Config) brave(ctx context.Context, q string, n int) ([]Result, error) {
	var body struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"results"`
		} `json:"web"`
	}
	u := cfg.URL + "/res/v1/web/search?" + url.Values{"q": {q}, "count": {fmt.Sprint(n)}}.Encode()
	if err := cfg.get(ctx, u, http.Header{"X-Subscription-Token": {cfg.APIKey}}, &body); err != nil {
		return nil, err
	}
	out := make([]Result, 0, len(body.Web.Results))
	for _, r := range body.Web.Results {
		out = append(out, Result{Title: plain(r.Title), URL: r.URL, Snippet: plain(r.Description)})
	}
	return out, nil
}

// tags matches the markup Brave puts into titles and descriptions
// (<strong> around the query's words).
var tags = regexp.MustCompile(`<[^>]*>`)

func plain(s string) string { return html.UnescapeString(tags.ReplaceAllString(s, "")) }

// get does one GET and decodes the JSON answer into v; a non-200 answer is
// an error quoting the start of its body.
func (cfg Config) get(ctx context.Context, u string, h http.Header, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("web.search: %w", err)
	}
	for k, vs := range h {
		req.Header[k] = vs
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "agentry web.search")
	resp, err := cfg.Client.Do(req)
	if err != nil {
		return fmt.Errorf("web.search via %s: %w", cfg.Backend, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return fmt.Errorf("web.search via %s: read answer: %w", cfg.Backend, err)
	}
	if resp.StatusCode != http.StatusOK {
		hint := ""
		if cfg.Backend == SearXNG && resp.StatusCode == http.StatusForbidden {
			hint = " (is \"json\" listed under search.formats in the instance's settings.yml?)"
		}
		err := fmt.Errorf("web.search via %s: HTTP %d%s: %.200s", cfg.Backend, resp.StatusCode, hint, b)
		if resp.StatusCode >= 500 { // the search service failed, not the query: a breaker counts it
			err = tool.MarkUnavailable(err)
		}
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("web.search via %s: the answer is not the expected JSON: %w", cfg.Backend, err)
	}
	return nil
}
