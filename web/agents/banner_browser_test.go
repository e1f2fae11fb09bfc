package agents_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// These tests read the answer to a save where a person looks first: one
// banner at the top of the page after it loads, its problems linked to
// their fields, in the same words as beside the field.

// textOfTID is the trimmed text of the element with data-testid id.
func textOfTID(t *testing.T, ctx context.Context, id string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('[data-testid="`+id+`"]') || {}).innerText || ""`))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(s), " ")
}

// countTID counts the elements with data-testid id.
func countTID(t *testing.T, ctx context.Context, id string) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="`+id+`"]').length`))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// wantBannerInView checks the banner is on screen where the page opens.
func wantBannerInView(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	b := boxOf(t, ctx, `[data-testid="`+id+`"]`)
	if b.Y < 0 || b.Bottom() > 400 {
		t.Errorf("banner %s at y %.0f–%.0f: not at the top of the page as it opens", id, b.Y, b.Bottom())
	}
}

func TestBrowserARefusedSaveSaysSoAtTheTopAndLinksToTheField(t *testing.T) {
	srv := startBrowserServer(t, team)
	ctx := newBrowser(t)
	viewport(t, ctx, 1400, 1000)
	before := srv.ReadAgentFile(t, "analyst.md")
	run(t, ctx, chromedp.Navigate(srv.URL+"/agents/analyst"), chromedp.WaitVisible(tid("agent-form")),
		chromedp.SetValue(tid("field-max_turns"), "lots"), chromedp.Click(tid("save")))
	waitText(t, ctx, "not-saved", "Not saved: 1 problem")
	wantBannerInView(t, ctx, "not-saved")
	const msg = `max_turns must be a whole number, got "lots"`
	if got := textOfTID(t, ctx, "not-saved"); got != "Not saved: 1 problem Max turns: "+msg {
		t.Errorf("banner = %q", got)
	}
	if n, got := countTID(t, ctx, "problem-max_turns"), textOfTID(t, ctx, "problem-max_turns"); n != 1 || got != msg {
		t.Errorf("beside the field: %d messages, the first %q; want the banner's one message", n, got)
	}
	if countTID(t, ctx, "run-agent") != 1 {
		t.Error(`"Run this agent" is gone after a refused save`)
	}
	screenshot(t, ctx, "editor-save-refused")
	run(t, ctx, chromedp.Click(tid("banner-link")))
	waitJS(t, ctx, `location.hash === "#fieldbox-max_turns"`, "the banner's link to the field")
	if f := boxOf(t, ctx, `[data-testid="fieldbox-max_turns"]`); f.Y < 0 || f.Bottom() > 1000 {
		t.Errorf("after the link the field is at y %.0f, off screen", f.Y)
	}
	if got := srv.ReadAgentFile(t, "analyst.md"); got != before {
		t.Errorf("a refused save changed the file:\n%s", got)
	}
}

func TestBrowserARefusedRawSaveKeepsTheFileOnDiskInTheForm(t *testing.T) {
	srv := startBrowserServer(t, team)
	ctx := newBrowser(t)
	viewport(t, ctx, 1400, 1000)
	run(t, ctx, chromedp.Navigate(srv.URL+"/agents/intern"), chromedp.WaitVisible(tid("agent-form")),
		chromedp.Click(chromedp.CSS(`[data-testid="raw-file"] > summary`)))
	typeInto(t, ctx, "raw-text", "---\nname: intern\ndescription: [unclosed\n---\nX.\n")
	run(t, ctx, chromedp.Click(tid("save-raw")))
	waitText(t, ctx, "not-saved", "Not saved: 1 problem")
	wantBannerInView(t, ctx, "not-saved")
	if got := textOfTID(t, ctx, "editor-title"); got != "intern" {
		t.Errorf("title after a refused raw save = %q, want the agent's name: the file on disk is fine", got)
	}
	if countTID(t, ctx, "agent-form") != 1 || countTID(t, ctx, "run-agent") != 1 {
		t.Error("the form or Run this agent is hidden after a refused raw save")
	}
	if got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="field-description"]').value.trim()`)); got != "Helps." {
		t.Errorf("the form shows description %q, want the file on disk's", got)
	}
	waitEditor(t, ctx, "raw-text")
	if got := markedLines(t, ctx, "raw-text", "error"); len(got) != 1 || got[0] != "3" {
		t.Errorf("the submitted text's error is marked at lines %v, want 3", got)
	}
	if !strings.Contains(textOfTID(t, ctx, "not-saved"), "Raw file, line 3:") {
		t.Errorf("the banner does not point at the raw file's line: %q", textOfTID(t, ctx, "not-saved"))
	}
	screenshot(t, ctx, "editor-raw-save-refused")
}

func TestBrowserASaveWithAWarningSaysSo(t *testing.T) {
	srv := startBrowserServer(t, team)
	ctx := newBrowser(t)
	viewport(t, ctx, 1400, 1000)
	// analyst may use filesystem.read_file; a tool that exists nowhere is a warning.
	run(t, ctx, chromedp.Navigate(srv.URL+"/agents/analyst"), chromedp.WaitVisible(tid("agent-form")),
		chromedp.SetValue(tid("picker-input-tools.allow"), "nosuch.tool"),
		chromedp.Click(chromedp.CSS(`[data-testid="picker-tools.allow"] [data-add]`)), chromedp.Click(tid("save")))
	waitText(t, ctx, "saved", "Saved to analyst.md")
	wantBannerInView(t, ctx, "saved")
	got := textOfTID(t, ctx, "saved")
	if !strings.HasPrefix(got, "Saved to analyst.md with 1 warning Allowed tools") || !strings.Contains(got, "nosuch.tool") {
		t.Errorf("banner after a save with a warning = %q", got)
	}
	if cls, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="saved"]').className`)); !strings.Contains(cls, "warn") {
		t.Errorf("the banner of a save with a warning has class %q, not warn", cls)
	}
	screenshot(t, ctx, "editor-saved-with-warning")
}
