package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

func TestPostsWithoutTheCSRFTokenAreRefused(t *testing.T) {
	e := newTestEnv(t, team)
	form, _ := e.editForm("intern")
	form.Set("description", "Forged.")
	status, _, _ := e.post("/agents/intern", form, "wrong-token")
	if status != http.StatusForbidden {
		t.Errorf("forged POST = %d, want 403", status)
	}
	form.Del(csrfField)
	if status, _, _ := e.post("/agents/intern", form, ""); status != http.StatusBadRequest {
		t.Errorf("POST without token = %d, want 400", status)
	}
	if got, _ := e.folder.disk("intern.md"); got != team["intern.md"] {
		t.Errorf("a forged POST changed the file:\n%s", got)
	}
}

func TestACrossSiteBrowserPostIsRefused(t *testing.T) {
	e := newTestEnv(t, team)
	form, _ := e.editForm("intern")
	req, _ := http.NewRequest(http.MethodPost, e.http.URL+"/agents/intern", strings.NewReader(form.Encode()))
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
	e := newTestEnv(t, team, func(c *Config) { c.Token = "s3cret" })
	cases := []struct {
		name   string
		header string
		path   string
		want   int
	}{
		{"no token is refused", "", "/agents", http.StatusUnauthorized},
		{"a wrong bearer token is refused", "Bearer nope", "/agents", http.StatusUnauthorized},
		{"the bearer token is accepted", "Bearer s3cret", "/agents", http.StatusOK},
		{"static assets need it too", "", "/static/style.css", http.StatusUnauthorized},
		{"a query token sets the cookie and redirects", "", "/agents?token=s3cret", http.StatusSeeOther},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, e.http.URL+c.path, nil)
			if c.header != "" {
				req.Header.Set("Authorization", c.header)
			}
			resp, err := e.client.Do(req)
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
	if status, _ := e.get("/agents"); status != http.StatusOK {
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
		e.srv.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Host %s = %d, want %d", host, rec.Code, want)
		}
	}
}

func TestPagesCarryAContentSecurityPolicyThatForbidsInlineScript(t *testing.T) {
	e := newTestEnv(t, team)
	resp, err := e.client.Get(e.http.URL + "/agents")
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
	_, doc := e.get("/agents/new")
	big := url.Values{"body": {strings.Repeat("x", 2<<20)}}
	status, _, _ := e.post("/preview", big, csrfOf(doc))
	if status != http.StatusRequestEntityTooLarge {
		t.Errorf("2 MiB POST = %d, want 413", status)
	}
}

func TestPreviewDropsScriptAndJavascriptLinks(t *testing.T) {
	e := newTestEnv(t, team)
	_, doc := e.get("/agents/new")
	status, page, _ := e.post("/preview", url.Values{"body": {"# Hi\n<script>alert(1)</script>"}}, csrfOf(doc))
	if status != http.StatusOK || textOf(page) != "Hi" {
		t.Errorf("POST /preview = %d %q, want 200 \"Hi\"", status, textOf(page))
	}
	rec := httptest.NewRecorder()
	html, err := renderMarkdown("# Hi\n<script>alert(1)</script>\n\n[x](javascript:alert(1)) <img src=x onerror=alert(1)>")
	if err != nil {
		t.Fatal(err)
	}
	html.Render(t.Context(), rec)
	out := rec.Body.String()
	for _, bad := range []string{"<script", "javascript:", "onerror"} {
		if strings.Contains(out, bad) {
			t.Errorf("rendered Markdown contains %q:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, "<h1>Hi</h1>") {
		t.Errorf("Markdown not rendered:\n%s", out)
	}
}

func TestErrorsMapToStatusesInOnePlace(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{fmt.Errorf("save x: %w", registry.ErrConflict), http.StatusConflict},
		{fmt.Errorf("create x: %w", registry.ErrExists), http.StatusConflict},
		{fmt.Errorf("write: %w", registry.ErrInvalidPath), http.StatusBadRequest},
		{fmt.Errorf("run: %w", trace.ErrNotFound), http.StatusNotFound},
		{fmt.Errorf("agent: %w", errNotFound), http.StatusNotFound},
		{echo.NewHTTPError(http.StatusTeapot, "tea"), http.StatusTeapot},
		{errors.New("disk on fire"), http.StatusInternalServerError},
	}
	for _, c := range cases {
		if got := statusOf(c.err); got != c.want {
			t.Errorf("statusOf(%v) = %d, want %d", c.err, got, c.want)
		}
	}
	if msg := messageOf(errors.New("secret path /etc/x"), 500); strings.Contains(msg, "/etc") {
		t.Errorf("internal error leaked to the page: %q", msg)
	}
}
