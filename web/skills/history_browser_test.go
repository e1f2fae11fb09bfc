package skills_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/web/internal/webtest"
)

// A skill's page has the agent's History: a save in the browser is listed
// at once (the History read waits for the version being recorded), two
// versions compare side by side, and a restore brings the first back byte
// for byte as a version of its own.
func TestBrowserASkillsHistoryListsTheSaveAndRestoresTheFirstVersion(t *testing.T) {
	s := startSkillsSite(t)
	v1 := s.read(t, "release-notes/SKILL.md")
	// What is there at start is a version, as serve's catch-up records it.
	if err := s.versions.Record(context.Background(), registry.FileChanged{Kind: registry.KindSkill, Name: "release-notes",
		Path: "release-notes/SKILL.md", Data: []byte(v1), Source: registry.SourceFiles}); err != nil {
		t.Fatal(err)
	}
	ctx := webtest.NewBrowser(t)
	run(t, ctx, chromedp.Navigate(s.URL+"/skills/release-notes"), chromedp.WaitVisible(tid("skill-form")),
		chromedp.SetValue(tid("skill-description"), "Write release notes from git."), chromedp.Click(tid("save")))
	waitText(t, ctx, "saved", "Saved to skills/release-notes/SKILL.md")
	v2 := s.read(t, "release-notes/SKILL.md")

	webtest.Follow(t, ctx, tid("skill-history"), "versions")
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="version"]')).map(r =>
		[r.dataset.hash, r.cells[4].textContent.trim(), r.querySelector('[data-testid="version-summary"]').textContent.trim(),
		 !!r.querySelector('[data-testid="current-version"]')].join(' | '))`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		registry.Hash([]byte(v2)) + " | web | description changed | true",
		registry.Hash([]byte(v1)) + " | filesystem | created (" + strconv.Itoa(strings.Count(v1, "\n")) + " lines) | false",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("History lists\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	webtest.Screenshot(t, ctx, "skill-history")

	webtest.Follow(t, ctx, tid("diff-submit"), "diff-Frontmatter")
	waitText(t, ctx, "diff-Frontmatter", "Write release notes from git.")
	waitText(t, ctx, "diff-Body", "The same in both")

	run(t, ctx, chromedp.Navigate(s.URL+"/skills/release-notes/history"),
		chromedp.Click(`[data-testid="restore-form"][data-hash="`+registry.Hash([]byte(v1))+`"] button`))
	waitText(t, ctx, "restored-notice", "Restored version "+registry.Hash([]byte(v1))[:12])
	if got := s.read(t, "release-notes/SKILL.md"); got != v1 {
		t.Fatalf("after the restore SKILL.md is\n%q\nwant version 1\n%q", got, v1)
	}
	waitText(t, ctx, "version-summary", "restore of "+registry.Hash([]byte(v1))[:12]+": description changed")
}
