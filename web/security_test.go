package web_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/web"

	"github.com/agentry/agentry/web/core"

	"github.com/agentry/agentry/web/internal/webtest"
)

func TestPostsWithoutTheCSRFTokenAreRefused(t *testing.T) {
	e := newTestEnv(t, team)
	form, _ := e.EditForm("intern")
	form.Set("description", "Forged.")
	status, _, _ := e.Post("/agents/intern", form, "wrong-token")
	if status != http.StatusForbidden {
		t.Errorf("forged POST = %d, want 403", status)
	}
	form.Del(core.CSRFFieldName)
	if status, _, _ := e.Post("/agents/intern", form, ""); status != http.StatusBadRequest {
		t.Errorf("POST without token = %d, want 400", status)
	}
	if got, _ := e.Folder.Disk("intern.md"); got != team["intern.md"] {
		t.Errorf("a forged POST changed the file:\n%s", got)
	}
}

func TestACrossSiteBrowserPostIsRefused(t *testing.T) {
	e := newTestEnv(t, team)
	form, _ := e.EditForm("intern")
	req, _ := http.NewRequest(http.MethodPost, e.HTTP.URL+"/agents/intern", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusBadRequest {
		t.Errorf("cross-site POST = %d, want 403 or 400", resp.StatusCode)
	}
}

func TestTokenIsRequiredOnEveryRequestWhenSet(t *testing.T) {
	e := newTestEnv(t, team, func(c *web.Config) { c.Token = "s3cret-s3cret-s3cret" })
	cases := []struct {
		name   string
		header string
		path   string
		want   int
	}{
		{"no token is refused", "", "/agents", http.StatusUnauthorized},
		{"a wrong bearer token is refused", "Bearer nope", "/agents", http.StatusUnauthorized},
		{"the bearer token is accepted", "Bearer s3cret-s3cret-s3cret", "/agents", http.StatusOK},
		{"static assets need it too", "", "/static/style.css", http.StatusUnauthorized},
		{"a query token sets the cookie and redirects", "", "/agents?token=s3cret-s3cret-s3cret", http.StatusSeeOther},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, e.HTTP.URL+c.path, nil)
			if c.header != "" {
				req.Header.Set("Authorization", c.header)
			}
			resp, err := e.Client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.want {
				t.Errorf("GET %s = %d, want %d", c.path, resp.StatusCode, c.want)
			}
		})
	}
	// After ?token= the cookie carries the session.
	if status, _ := e.Get("/agents"); status != http.StatusOK {
		t.Errorf("GET with the cookie = %d, want 200", status)
	}
}

func TestWithoutATokenOnlyLoopbackHostsAreServed(t *testing.T) {
	e := newTestEnv(t, team)
	for host, want := range map[string]int{
		"127.0.0.1:8080": http.StatusOK, "localhost:1": http.StatusOK, "[::1]:80": http.StatusOK,
		"evil.example:8080": http.StatusForbidden, "192.168.1.5": http.StatusForbidden,
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/agents", nil)
		req.Host = host
		e.Server.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Host %s = %d, want %d", host, rec.Code, want)
		}
	}
}

func TestPagesCarryAContentSecurityPolicyThatForbidsInlineScript(t *testing.T) {
	e := newTestEnv(t, team)
	resp, err := e.Client.Get(e.HTTP.URL + "/agents")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP = %q", csp)
	}
	if resp.Header.Get("X-Frame-Options") != "DENY" {
		t.Error("pages may be framed")
	}
}

func TestRequestBodiesOverOneMiBAreRefused(t *testing.T) {
	e := newTestEnv(t, team)
	_, doc := e.Get("/agents/new")
	csrf := csrfOf(doc)
	post := func(n int) int {
		prefix := "_csrf=" + url.QueryEscape(csrf) + "&body="
		body := prefix + strings.Repeat("x", n-len(prefix))
		req, _ := http.NewRequest(http.MethodPost, e.HTTP.URL+"/preview", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := e.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post(core.MaxBody); got == http.StatusRequestEntityTooLarge {
		t.Errorf("a body of exactly 1 MiB (%d bytes) = 413, want it accepted", core.MaxBody)
	}
	if got := post(1_000_001); got == http.StatusRequestEntityTooLarge {
		t.Errorf("a body of 1,000,001 bytes = 413: the limit is 1 MB, not the documented 1 MiB")
	}
	if got := post(core.MaxBody + 1); got != http.StatusRequestEntityTooLarge {
		t.Errorf("a body of 1 MiB + 1 byte = %d, want 413", got)
	}
}

func TestATenMBAgentFileIsReportedAsTooBigNotAsOneMiB(t *testing.T) {
	huge := "---\nname: huge\ndescription: x\n---\n" + strings.Repeat("x", 10<<20)
	srv := webtest.StartBrowserServer(t, map[string]string{"huge.md": huge, "ok.md": team["intern.md"]})
	deadline := time.Now().Add(10 * time.Second)
	for len(srv.Agents.Snapshot().Files()) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	resp, err := http.Get(srv.URL + "/agents")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	page := string(body)
	if !strings.Contains(page, "larger than the 1048576-byte (1 MiB) limit") {
		t.Errorf("the agents list does not say the 10 MB file is over the limit")
	}
	if strings.Contains(page, "1048577") {
		t.Errorf("the agents list misreports the 10 MB file as 1048577 bytes")
	}
}

func TestPreviewDropsScriptAndJavascriptLinks(t *testing.T) {
	e := newTestEnv(t, team)
	_, doc := e.Get("/agents/new")
	status, page, _ := e.Post("/preview", url.Values{"body": {"# Hi\n<script>alert(1)</script>"}}, csrfOf(doc))
	if status != http.StatusOK || textOf(page) != "Hi" {
		t.Errorf("POST /preview = %d %q, want 200 \"Hi\"", status, textOf(page))
	}
}

func TestShortOrBlankTokensAreRefused(t *testing.T) {
	folder := webtest.NewMemFolder(team)
	for _, tok := range []string{" ", "x", "               x", strings.Repeat(" ", 40), "fifteen-chars!!"} {
		if _, err := web.New(web.Config{Agents: folder.Reg, Files: folder, Token: tok}); err == nil {
			t.Errorf("token %q was accepted", tok)
		}
	}
	if _, err := web.New(web.Config{Agents: folder.Reg, Files: folder, Token: "sixteen-chars!!!"}); err != nil {
		t.Errorf("a 16-character token was refused: %v", err)
	}
}

// A CSRF token guards what a page on another site can send by itself, a
// form post. A JSON body (the API, MCP, A2A) or a method other than GET,
// HEAD and POST needs a CORS preflight this server never grants, so such
// requests pass without one; a text/plain post, which a form can send,
// does not.
func TestOnlyWhatAFormCanSendNeedsTheCSRFToken(t *testing.T) {
	e := newTestEnv(t, team)
	post := func(contentType, body string) int {
		req, _ := http.NewRequest(http.MethodPost, e.HTTP.URL+"/api/v1/validate", strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post("application/json", `{"content": "---\nname: x\ndescription: y\n---\nz\n"}`); got != http.StatusOK {
		t.Errorf("a JSON POST = %d, want 200", got)
	}
	if got := post("text/plain", `{"content": "x"}`); got != http.StatusBadRequest && got != http.StatusForbidden {
		t.Errorf("a text/plain POST without the CSRF token = %d, want it refused", got)
	}
}
