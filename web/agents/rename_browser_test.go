package agents_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// vsCodeFiles are VS Code custom agents, named by their files: name: is
// the display name.
var vsCodeFiles = map[string]string{
	"fancy.agent.md":   "---\nname: Fancy Planner\ndescription: Plans, fancily.\n---\nPlan.\n",
	"mode.chatmode.md": "---\nname: Chat Mode\ndescription: A chat mode.\n---\nChat.\n",
	"plain.agent.md":   "---\ndescription: No name at all.\n---\nPlain.\n",
}

// Renaming a VS Code agent moves its file, which gives it its new id; the
// display name stays as written, and a file without one gets none.
func TestBrowserRenamingAVSCodeAgentKeepsItsDisplayName(t *testing.T) {
	srv := startBrowserServer(t, vsCodeFiles)
	ctx := newBrowser(t)

	// The Rename form; the editor shows the display name beside the id.
	run(t, ctx, chromedp.Navigate(srv.URL+"/agents/fancy"), chromedp.WaitVisible(tid("agent-form")))
	waitText(t, ctx, "editor-display", "Fancy Planner")
	run(t, ctx, chromedp.Click(chromedp.CSS(`details:has([data-testid="rename-form"]) > summary`)),
		chromedp.SetValue(tid("rename-to"), "fancier"), chromedp.Click(tid("rename")))
	waitText(t, ctx, "editor-path", "fancier.agent.md")
	waitText(t, ctx, "editor-display", "Fancy Planner")
	if got := srv.ReadAgentFile(t, "fancier.agent.md"); got != "---\nname: Fancy Planner\ndescription: Plans, fancily.\n---\nPlan.\n" {
		t.Errorf("fancier.agent.md after the rename:\n%s", got)
	}
	run(t, ctx, chromedp.Navigate(srv.URL+"/agents/plain"), chromedp.WaitVisible(tid("agent-form")),
		chromedp.Click(chromedp.CSS(`details:has([data-testid="rename-form"]) > summary`)),
		chromedp.SetValue(tid("rename-to"), "plainer"), chromedp.Click(tid("rename")))
	waitText(t, ctx, "editor-path", "plainer.agent.md")
	if got := srv.ReadAgentFile(t, "plainer.agent.md"); got != vsCodeFiles["plain.agent.md"] {
		t.Errorf("plainer.agent.md after the rename:\n%s", got)
	}

	// The editor's Name field; a .chatmode.md file stays one, as its hint says.
	run(t, ctx, chromedp.Navigate(srv.URL+"/agents/mode"), chromedp.WaitVisible(tid("agent-form")))
	waitText(t, ctx, "fieldbox-name", "the file is saved as NAME.chatmode.md")
	run(t, ctx, chromedp.SetValue(tid("field-name"), "moder"), chromedp.Click(tid("save")))
	waitText(t, ctx, "editor-path", "moder.chatmode.md")
	if got := srv.ReadAgentFile(t, "moder.chatmode.md"); got != "---\nname: Chat Mode\ndescription: A chat mode.\n---\nChat.\n" {
		t.Errorf("moder.chatmode.md after the save:\n%s", got)
	}
	for _, gone := range []string{"fancy.agent.md", "plain.agent.md", "mode.chatmode.md"} {
		if _, err := os.Stat(filepath.Join(srv.Dir, gone)); err == nil {
			t.Errorf("%s is still there", gone)
		}
	}
	screenshot(t, ctx, "rename-vscode")
}

// A rename to another agent's name is refused in the editor: the Rename
// form stays open with the name typed and the reason beside it.
func TestBrowserARefusedRenameStaysInTheEditor(t *testing.T) {
	srv := startBrowserServer(t, team)
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(srv.URL+"/agents/intern"), chromedp.WaitVisible(tid("agent-form")),
		chromedp.Click(chromedp.CSS(`details:has([data-testid="rename-form"]) > summary`)),
		chromedp.SetValue(tid("rename-to"), "analyst"))
	follow(t, ctx, tid("rename"), "not-renamed")
	waitText(t, ctx, "rename-problem", "analyst.md already exists")
	waitText(t, ctx, "editor-path", "intern.md")
	run(t, ctx, chromedp.WaitVisible(tid("rename-to")))
	typed, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="rename-to"]').value`))
	if err != nil || typed != "analyst" {
		t.Errorf("the Rename field holds %q (%v), want analyst", typed, err)
	}
	screenshot(t, ctx, "rename-refused")
}
