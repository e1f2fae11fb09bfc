package web_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/net/html"

	"github.com/agentry/agentry/registry/plugin"
	library "github.com/agentry/agentry/registry/skills"
	"github.com/agentry/agentry/web"
	"github.com/agentry/agentry/web/core"
	"github.com/agentry/agentry/web/internal/dom"
	"github.com/agentry/agentry/web/internal/webtest"
)

// Every route that looks a thing up by a name or ID from its path or query
// answers one that does not exist with 404 and a sentence saying what is
// missing (core.NotFound), never the handler's wrapped error or "nothing
// at" the address: a page in the site's layout (the error page, or the
// form or explorer that was asked for, saying it where it says problems),
// an htmx fragment the error box alone, the JSON API and A2A an APIError,
// MCP's tools/call (no HTTP status there) a JSON-RPC invalid-params error.
func TestEveryRouteSaysWhatIsMissingByName(t *testing.T) {
	site := webtest.StartVersionedSite(t, team, func(c *web.Config) {
		c.Skills, c.Plugins = library.NewCatalog(), &plugin.Store{Dir: t.TempDir()}
		c.Expose = core.Exposure{Agents: []string{"*"}, Workflows: []string{"*"}}
	})
	s := newSession(t, site.URL)
	run := s.startRun(t, "lead")
	const (
		page     = "error-message"  // the error page, or the error box of an htmx fragment
		form     = "run-problem"    // the start-a-run form
		explorer = "explorer-error" // the permissions explorer
		api      = "api"            // an APIError
		mcpTool  = "mcp"            // the path is a tool's name, called over /mcp
	)
	for _, c := range []struct {
		method, path string
		htmx         bool
		where, want  string
	}{
		{"GET", "/agents/ghost", false, page, "There is no agent “ghost”."},
		{"POST", "/agents/ghost/enabled", false, page, "There is no agent “ghost”."},
		{"GET", "/agents/file/ghost.md", false, page, "There is no agent file “ghost.md”."},
		{"GET", "/agents/ghost/history", false, page, "There is no agent “ghost”."},
		{"GET", "/agents/ghost/history/diff", false, page, "There is no agent “ghost”."},
		{"POST", "/agents/ghost/history/restore?hash=deadbeef", false, page, "There is no agent “ghost”."},
		{"GET", "/agents/lead/history/diff?a=deadbeef", false, page, "There is no version “deadbeef”."},
		{"POST", "/agents/lead/history/restore?hash=deadbeef", false, page, "There is no version “deadbeef”."},
		{"GET", "/permissions?chain=ghost", false, explorer, "There is no agent “ghost”."},
		{"GET", "/permissions?chain=lead&chain=ghost", false, explorer, "There is no agent “ghost”."},
		{"GET", "/permissions?agent=ghost", false, explorer, "There is no agent “ghost”."},
		{"GET", "/permissions?agent=analyst&via=ghost", false, explorer, "There is no agent “ghost”."},
		{"GET", "/runs/new?agent=ghost", false, form, "There is no agent “ghost”."},
		{"POST", "/runs/new?agent=ghost&task=x", false, form, "There is no agent “ghost”."},
		{"GET", "/workflows/ghost", false, page, "There is no workflow “ghost”."},
		{"POST", "/workflows/ghost/run", false, page, "There is no workflow “ghost”."},
		{"GET", "/workflows/ghost/history/diff", false, page, "There is no workflow “ghost”."},
		{"GET", "/skills/ghost", false, page, "There is no skill “ghost”."},
		{"GET", "/skills/ghost/files/SKILL.md", false, page, "There is no skill “ghost”."},
		{"GET", "/skills/ghost/history", false, page, "There is no skill “ghost”."},
		{"GET", "/skills/ghost/history/diff", false, page, "There is no skill “ghost”."},
		{"POST", "/skills/ghost/history/restore?hash=deadbeef", false, page, "There is no skill “ghost”."},
		{"POST", "/commands/ghost/run", false, page, "There is no command “ghost”."},
		{"POST", "/plugins/ghost/enable?what=hooks&on=true", false, page, "There is no plugin “ghost”."},
		{"GET", "/runs/ghost", false, page, "There is no run “ghost”."},
		{"GET", "/runs/ghost/events", false, page, "There is no run “ghost”."},
		{"GET", "/runs/ghost/rows", true, page, "There is no run “ghost”."},
		{"GET", "/runs/ghost/spans/x", true, page, "There is no run “ghost”."},
		{"GET", "/runs/" + run + "/spans/ghost", true, page, "There is no span “ghost”."},
		{"GET", "/runs/ghost/export", false, page, "There is no run “ghost”."},
		{"POST", "/runs/ghost/continue", false, page, "There is no run “ghost”."},
		{"POST", "/runs/ghost/cancel", false, page, "There is no run “ghost”."},
		{"GET", "/runs/ghost/diff/" + run, false, page, "There is no run “ghost”."},
		{"GET", "/runs/" + run + "/diff/ghost", false, page, "There is no run “ghost”."},
		{"GET", "/evals/ghost", false, page, "There is no eval suite “ghost”."},
		{"GET", "/evals/ghost/compare", false, page, "There is no eval suite “ghost”."},
		{"GET", "/evals/ghost/compare?a=ghost&b=x", false, page, "There is no eval “ghost”."},
		{"GET", "/evals/new-case?run=ghost", false, page, "There is no run “ghost”."},
		{"POST", "/evals/new-case?run=ghost", false, page, "There is no run “ghost”."},
		{"POST", "/approvals/ghost/approve", false, page, "There is no approval “ghost”."},
		{"GET", "/a2a/ghost/.well-known/agent-card.json", false, api, "There is no exposed agent “ghost”."},
		{"POST", "/a2a/ghost", false, api, "There is no exposed agent “ghost”."},
		{"POST", "/a2a/workflow-ghost", false, api, "There is no exposed workflow “ghost”."},
		{"POST", "ghost", false, mcpTool, "There is no exposed agent “ghost”."},
		{"POST", "workflow-ghost", false, mcpTool, "There is no exposed workflow “ghost”."},
		{"POST", "writer", false, mcpTool, "There is no exposed agent “writer”."}, // disabled
		{"GET", "/api/v1/agents/ghost", false, api, "There is no agent “ghost”."},
		{"GET", "/api/v1/permissions?agent=ghost", false, api, "There is no agent “ghost”."},
		{"GET", "/api/v1/permissions?agent=analyst&via=lead,ghost", false, api, "There is no agent “ghost”."},
		{"GET", "/api/v1/runs/ghost/spans", false, api, "There is no run “ghost”."},
	} {
		status, got, want := 0, "", http.StatusNotFound
		if c.where == mcpTool {
			status, got = s.callTool(t, c.path)
			want = jsonrpc.CodeInvalidParams
		} else {
			status, got = s.ask(t, c.method, c.path, c.htmx, c.where)
		}
		if status != want || got != c.want {
			t.Errorf("%s %s = %d %q, want %d %q", c.method, c.path, status, got, want, c.want)
		}
	}
}

// session is a browser's: the CSRF cookie and token its forms post with.
type session struct {
	url, csrf string
	cookies   []*http.Cookie
}

func newSession(t *testing.T, base string) *session {
	t.Helper()
	resp, err := http.Get(base + "/agents")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	doc, err := html.Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &session{url: base, csrf: dom.CSRFOf(doc), cookies: resp.Cookies()}
}

// startRun starts a run of agent through the JSON API and returns its ID.
func (s *session) startRun(t *testing.T, agent string) string {
	t.Helper()
	resp, err := http.Post(s.url+"/api/v1/runs", "application/json", strings.NewReader(`{"agent":"`+agent+`","task":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Run struct{ ID string } }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Run.ID == "" {
		t.Fatalf("start a run: %d %v", resp.StatusCode, err)
	}
	return out.Run.ID
}

// ask sends a request as the UI does (a post is a form with the CSRF
// token; an A2A post a JSON-RPC message) and reads what the answer says
// where: the text of that element of a whole page (or of the htmx
// fragment asked for), or an APIError's message.
func (s *session) ask(t *testing.T, method, path string, htmx bool, where string) (int, string) {
	t.Helper()
	u, err := url.Parse(s.url + path)
	if err != nil {
		t.Fatal(err)
	}
	var body io.Reader
	if method == http.MethodPost {
		v := u.Query()
		v.Set(core.CSRFFieldName, s.csrf)
		body = strings.NewReader(v.Encode())
		if where == "api" {
			body = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}`)
		}
	}
	req, err := http.NewRequest(method, u.String(), body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if where == "api" {
		req.Header.Set("Content-Type", "application/json")
	}
	if htmx {
		req.Header.Set("HX-Request", "true")
	}
	for _, c := range s.cookies {
		req.AddCookie(c)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if where == "api" {
		var e core.APIError
		if err := json.NewDecoder(resp.Body).Decode(&e); err != nil || e.Status != resp.StatusCode || e.Code != "not_found" {
			return resp.StatusCode, "not an APIError"
		}
		return resp.StatusCode, e.Message
	}
	doc, err := html.Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if layout := findTag(doc, "nav"); layout == htmx {
		return resp.StatusCode, "the layout is missing from a page, or around a fragment"
	}
	return resp.StatusCode, dom.TextOf(dom.Find(doc, where))
}

// callTool calls the MCP tool name with a task over /mcp and returns the
// JSON-RPC error's code and message.
func (s *session) callTool(t *testing.T, name string) (int, string) {
	t.Helper()
	ctx := t.Context()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.url + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: map[string]any{"task": "x"}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		return 0, fmt.Sprint("not a JSON-RPC error: ", err)
	}
	return int(je.Code), je.Message
}

// findTag reports whether doc has an element named tag.
func findTag(n *html.Node, tag string) bool {
	if n.Type == html.ElementNode && n.Data == tag {
		return true
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if findTag(c, tag) {
			return true
		}
	}
	return false
}
