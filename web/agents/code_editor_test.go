package agents_test

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestTheRawEditorCarriesTheProblemsOfEachLine checks the data-problems the
// code editor turns into markers (docs/web.md, "Code editors"): typos.md has
// an invalid execution on line 5 and a non-number max_turns on line 6.
func TestTheRawEditorCarriesTheProblemsOfEachLine(t *testing.T) {
	e := newTestEnv(t, awkward)
	_, doc := e.Get("/agents/typos")
	raw := find(doc, "raw-text")
	if raw == nil || attr(raw, "data-editor") != "frontmatter" {
		t.Fatalf("the raw textarea is no frontmatter editor: %v", raw)
	}
	var got []struct {
		Line     int
		Severity string
		Message  string
	}
	if err := json.Unmarshal([]byte(attr(raw, "data-problems")), &got); err != nil {
		t.Fatalf("data-problems %q: %v", attr(raw, "data-problems"), err)
	}
	if len(got) != 2 || got[0].Line != 5 || !strings.Contains(got[0].Message, "paralel") ||
		got[1].Line != 6 || !strings.Contains(got[1].Message, "many") || got[0].Severity != "error" {
		t.Errorf("data-problems = %+v, want the errors of lines 5 and 6", got)
	}
	if body := find(doc, "field-body"); attr(body, "data-editor") != "markdown" {
		t.Errorf("the body textarea has data-editor %q", attr(body, "data-editor"))
	}
}

// TestOnlyPagesWithAnEditorLoadIt keeps the 600 KB editor off the other pages.
func TestOnlyPagesWithAnEditorLoadIt(t *testing.T) {
	e := newTestEnv(t, team)
	for path, want := range map[string]bool{"/agents/lead": true, "/agents/new": true, "/agents": false, "/graph": false, "/permissions": false} {
		resp, err := e.Client.Get(e.HTTP.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := strings.Contains(string(b), `src="/static/editor.js"`); got != want {
			t.Errorf("%s loads the editor: %v, want %v", path, got, want)
		}
	}
	resp, err := e.Client.Get(e.HTTP.URL + "/static/editor.js")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != 200 || len(b) < 100_000 {
		t.Errorf("/static/editor.js: status %d, %d bytes", resp.StatusCode, len(b))
	}
}
