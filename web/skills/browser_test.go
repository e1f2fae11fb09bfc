package skills_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/delegation/versions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
	"github.com/agentry/agentry/registry/plugin"
	library "github.com/agentry/agentry/registry/skills"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"

	"github.com/agentry/agentry/web"
	"github.com/agentry/agentry/web/internal/webtest"
	"github.com/agentry/agentry/web/skills"
)

var (
	tid      = webtest.TID
	run      = webtest.Run
	waitText = webtest.WaitText
	waitJS   = webtest.WaitJS
)

// skillsSite is a whole UI over a watched skills folder holding a copy of
// the shipped skills/release-notes, and a plugins folder where the test
// marketplace's docs and git-tools plugins are installed. Its SKILL.md
// changes become versions, as in serve.
type skillsSite struct {
	*webtest.Site
	skills   string // the skills folder
	plugins  *plugin.Store
	versions *versions.Recorder
}

func startSkillsSite(t *testing.T) *skillsSite {
	t.Helper()
	s := &skillsSite{skills: t.TempDir(), plugins: &plugin.Store{Dir: t.TempDir()}}
	if err := os.CopyFS(filepath.Join(s.skills, "release-notes"), os.DirFS("../../skills/release-notes")); err != nil {
		t.Fatal(err)
	}
	rep, err := s.plugins.Add(context.Background(), "../../registry/plugin/testdata/market", []string{"docs", "git-tools"})
	if err != nil || len(rep.Installed) != 2 {
		t.Fatalf("install the test marketplace: %v %+v", err, rep)
	}
	cat := library.NewCatalog()
	writers := map[string]skills.Files{}
	store := memory.New() // the skills' versions, as serve records them
	s.versions = versions.New(store, slog.New(slog.DiscardHandler))
	t.Cleanup(func() { s.versions.Close(context.Background()) })
	for _, r := range []library.Root{
		{Label: "skills", Kind: library.RootSkills, Dir: s.skills},
		{Label: ".agentry/plugins", Kind: library.RootPlugins, Dir: s.plugins.Dir},
	} {
		f, err := folder.OpenContents(r.Dir, folder.VersionedSkills(cat, r, s.versions.Hook), folder.Config{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		writers[r.Label] = folder.Sourced(f, registry.SourceWeb)
	}
	s.Site = webtest.StartSite(t, nil, nil, func(c *web.Config) {
		c.Skills, c.Plugins, c.Versions = cat, s.plugins, s.versions.Reads()
		c.SkillFiles = func(label string) skills.Files { return writers[label] }
	})
	return s
}

// pageText loads url and returns its text.
func pageText(t *testing.T, ctx context.Context, url string) string {
	t.Helper()
	run(t, ctx, chromedp.Navigate(url))
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		t.Fatal(err)
	}
	return text
}

func (s *skillsSite) read(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(s.skills, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestBrowserSkillsListShowsPluginsProblemsAndFollowsTheFolder(t *testing.T) {
	s := startSkillsSite(t)
	ctx := webtest.NewBrowser(t)
	run(t, ctx, chromedp.Navigate(s.URL+"/skills"), chromedp.WaitVisible(tid("skills-table")))
	waitText(t, ctx, "skill-row-release-notes", "Write release notes from the git history")
	waitText(t, ctx, "skill-row-pdf-forms", "docs")
	waitText(t, ctx, "skill-problems", "Bad_Skill/SKILL.md")
	waitText(t, ctx, "command-row-git-tools.review", "/git-tools.review")
	waitText(t, ctx, "command-row-docs.review", "may use: filesystem.read_file, filesystem.grep")
	webtest.Screenshot(t, ctx, "skills-list")

	// A skill added on disk appears without a reload.
	if err := os.MkdirAll(filepath.Join(s.skills, "csv-report"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.skills, "csv-report", "SKILL.md"),
		[]byte("---\nname: csv-report\ndescription: Summarise a CSV file.\n---\nCount the rows.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(pageText(t, ctx, s.URL+"/skills"), "Summarise a CSV file.") {
		if time.Now().After(deadline) {
			t.Fatal("the skill added on disk never reached /skills")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestBrowserEditASkillKeepsItsFrontmatter(t *testing.T) {
	s := startSkillsSite(t)
	ctx := webtest.NewBrowser(t)
	run(t, ctx, chromedp.Navigate(s.URL+"/skills"), chromedp.WaitVisible(tid("skills-table")))
	webtest.Follow(t, ctx, chromedp.CSS(`[data-testid="skill-row-release-notes"] a`), "skill-form")
	waitText(t, ctx, "skill-files", "references/style.md")
	waitText(t, ctx, "skill-allowed-tools", "shell.run(git log *)")
	// Each field's label stands above it: Description's label is not on the
	// line of the Name box.
	waitJS(t, ctx, `(() => {
	  const name = document.querySelector('[data-testid="skill-name"]').getBoundingClientRect();
	  const label = document.querySelector('label[for="skill-description"]');
	  return !!label && label.getBoundingClientRect().top >= name.bottom;
	})()`, "the Description label below the Name box")

	// Its reference file is shown as text.
	webtest.Follow(t, ctx, chromedp.CSS(`[data-testid="skill-files"] a[href$="references/style.md"]`), "file-text")
	waitText(t, ctx, "file-text", strings.SplitN(s.read(t, "release-notes/references/style.md"), "\n", 2)[0])
	// Back to the skill by its address: chromedp's NavigateBack waits for a
	// navigation event that a page restored from the back-forward cache may
	// never send (it hung once under load).
	run(t, ctx, chromedp.Navigate(s.URL+"/skills/release-notes"), chromedp.WaitVisible(tid("skill-form")))

	// A new description is saved into SKILL.md; the keys the form does not
	// show (license, metadata) stay as they were.
	run(t, ctx, chromedp.SetValue(tid("skill-description"), "Write release notes from git."), chromedp.Click(tid("save")))
	waitText(t, ctx, "saved", "Saved to skills/release-notes/SKILL.md")
	got := s.read(t, "release-notes/SKILL.md")
	for _, want := range []string{"description: Write release notes from git.\n", "license: Apache-2.0\n", "metadata:\n  author: agentry\n", "# Release notes\n"} {
		if !strings.Contains(got, want) {
			t.Fatalf("SKILL.md after the save lacks %q:\n%s", want, got)
		}
	}

	// Without a description the skill would not load: refused, with the
	// problem's line, and the file keeps its text.
	run(t, ctx, chromedp.SetValue(tid("skill-description"), " "), chromedp.Click(tid("save")))
	waitText(t, ctx, "not-saved", "Not saved")
	waitText(t, ctx, "skill-problems", "description is missing")
	if s.read(t, "release-notes/SKILL.md") != got {
		t.Fatal("a skill that would not load was saved")
	}
	webtest.Screenshot(t, ctx, "skill-editor-refused")
}

func TestBrowserAPluginSkillIsReadOnlyAndItsBinaryIsOnlyNamed(t *testing.T) {
	s := startSkillsSite(t)
	ctx := webtest.NewBrowser(t)
	run(t, ctx, chromedp.Navigate(s.URL+"/skills/pdf-forms"), chromedp.WaitVisible(tid("skill-form")))
	waitText(t, ctx, "read-only", "comes from the plugin docs")
	waitJS(t, ctx, `!document.querySelector('[data-testid="save"]') && document.querySelector('[data-testid="skill-body"]').readOnly`, "a read-only editor")
	webtest.Follow(t, ctx, chromedp.CSS(`[data-testid="skill-files"] a[href$="assets/logo.png"]`), "binary")
}

func TestBrowserRunACommandFromTheSkillsPage(t *testing.T) {
	s := startSkillsSite(t)
	ctx := webtest.NewBrowser(t)
	run(t, ctx, chromedp.Navigate(s.URL+"/skills"), chromedp.WaitVisible(tid("commands-table")),
		chromedp.SetValue(`[data-testid="command-row-git-tools.review"] input[name="args"]`, "the parser change"),
		chromedp.Click(`[data-testid="command-row-git-tools.review"] button`))
	waitText(t, ctx, "run-status", "ok")
	page, err := s.Store.Runs(context.Background(), trace.RunFilter{})
	if err != nil || len(page.Runs) != 1 {
		t.Fatalf("runs after the command: %v %+v", err, page.Runs)
	}
	if r := page.Runs[0]; r.Task != "Review the staged changes: the parser change" || r.Agent != "/git-tools.review" {
		t.Fatalf("the command ran as %q with the task %q", r.Agent, r.Task)
	}
}

func TestBrowserPluginHooksRunOnlyOnceEnabled(t *testing.T) {
	s := startSkillsSite(t)
	ctx := webtest.NewBrowser(t)
	run(t, ctx, chromedp.Navigate(s.URL+"/plugins"), chromedp.WaitVisible(tid("plugin-docs")))
	waitText(t, ctx, "plugin-docs", "check.sh")
	waitText(t, ctx, "plugin-hooks", "disabled")
	// Counts read as English: one agent, one command, no skills.
	waitJS(t, ctx, `document.querySelector('[data-testid="plugin-git-tools"] [data-testid="plugin-counts"]').innerText.startsWith("1 agent · 0 skills · 1 command · from")`,
		"git-tools counted as 1 agent · 0 skills · 1 command")
	webtest.Screenshot(t, ctx, "plugins")
	run(t, ctx, chromedp.Click(tid("enable-hooks")))
	waitText(t, ctx, "plugin-hooks", "enabled")
	list, err := s.plugins.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list {
		if p.Name == "docs" && (!p.HooksEnabled || p.MCPEnabled) {
			t.Fatalf("after enabling docs' hooks: hooks %v, servers %v", p.HooksEnabled, p.MCPEnabled)
		}
	}
}
