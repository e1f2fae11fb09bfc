package web_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

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

func TestRequestBodiesOverTheLimitAreRefused(t *testing.T) {
	e := newTestEnv(t, team)
	_, doc := e.Get("/agents/new")
	big := url.Values{"body": {strings.Repeat("x", 2<<20)}}
	status, _, _ := e.Post("/preview", big, csrfOf(doc))
	if status != http.StatusRequestEntityTooLarge {
		t.Errorf("2 MiB POST = %d, want 413", status)
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
