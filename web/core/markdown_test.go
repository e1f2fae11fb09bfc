package core

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func TestMarkdownDropsScriptAndJavascriptLinks(t *testing.T) {
	rec := httptest.NewRecorder()
	html, err := Markdown("# Hi\n<script>alert(1)</script>\n\n[x](javascript:alert(1)) <img src=x onerror=alert(1)>")
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
