package agents_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// These tests drive the code editor (web/core/static/editor.js, docs/web.md
// "Code editors") as a person would: keys typed into CodeMirror, the form's
// own Save button, and the file on disk compared byte for byte.

// shadowOf is a JavaScript expression for the shadow root of the editor that
// replaced the textarea with data-testid id.
func shadowOf(id string) string {
	return fmt.Sprintf(`document.querySelector('[data-testid="editor-%s"]').shadowRoot`, id)
}

// waitEditor waits until the textarea id has become a CodeMirror editor.
func waitEditor(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	waitJS(t, ctx, fmt.Sprintf(`(() => { const h = document.querySelector('[data-testid="editor-%s"]');
		return !!h && !!h.shadowRoot && !!h.shadowRoot.querySelector('.cm-content') &&
			document.querySelector('[data-testid="%s"]').hidden; })()`, id, id), "the code editor for "+id)
}

// typeInto focuses the editor, selects everything and types text key by key.
func typeInto(t *testing.T, ctx context.Context, id, text string) {
	t.Helper()
	waitEditor(t, ctx, id)
	focus := fmt.Sprintf(`(() => { %s.querySelector('.cm-content').focus(); return true; })()`, shadowOf(id))
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](focus)); err != nil {
		t.Fatal(err)
	}
	run(t, ctx, chromedp.KeyEvent("a", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			run(t, ctx, pressEnter)
		}
		run(t, ctx, chromedp.KeyEvent(line))
	}
}

// pressEnter presses Enter as a keyboard does: one keydown whose character
// the browser drops when the page handles the key. chromedp.KeyEvent sends
// the character as an event of its own, so CodeMirror, which handles Enter
// itself, would get a second line break no person could type.
var pressEnter = chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
	enter := input.DispatchKeyEventParams{Key: "Enter", Code: "Enter", WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13}
	down, up := enter, enter
	down.Type, down.Text, down.UnmodifiedText = input.DispatchKeyEventTypeKeyDown, "\r", "\r"
	up.Type = input.DispatchKeyEventTypeKeyUp
	if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, down); err != nil {
		return err
	}
	_, err := chromedp.Call(ctx, input.DispatchKeyEvent, up)
	return err
})

// editorText is the text the editor shows, line by line, as the page renders it.
func editorText(t *testing.T, ctx context.Context, id string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(
		`Array.from(%s.querySelectorAll('.cm-line')).map(l => l.textContent).join('\n')`, shadowOf(id))))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// markedLines are the line numbers of the lint gutter's markers of a kind
// ("error", "warning"), read off the line-number gutter beside each marker.
func markedLines(t *testing.T, ctx context.Context, id, kind string) []string {
	t.Helper()
	js := fmt.Sprintf(`(() => { const r = %s;
		const nums = Array.from(r.querySelectorAll('.cm-lineNumbers .cm-gutterElement'));
		return Array.from(r.querySelectorAll('.cm-lint-marker-%s')).map(m => {
			const top = m.closest('.cm-gutterElement').getBoundingClientRect().top;
			const n = nums.find(e => Math.abs(e.getBoundingClientRect().top - top) < 2);
			return n ? n.textContent : '?';
		}); })()`, shadowOf(id), kind)
	lines, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](js))
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func TestBrowserTypingIntoTheBodyEditorSavesExactlyThatText(t *testing.T) {
	srv := startBrowserServer(t, team)
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(srv.URL+"/agents/intern"), chromedp.WaitVisible(tid("agent-form")))
	waitEditor(t, ctx, "field-body")
	screenshot(t, ctx, "code-editor-body")

	body := "# Intern\n\nYou help with *small* tasks: <b>tags</b> & \"quotes\" stay as typed.\n\n\nÄ line after two blank lines — ✓\n"
	typeInto(t, ctx, "field-body", body)
	waitText(t, ctx, "preview", "You help with small tasks")
	run(t, ctx, chromedp.Click(tid("save")))
	waitText(t, ctx, "saved", "intern.md")
	want := "---\nname: intern\ndescription: Helps.\n---\n" + body
	if got := srv.ReadAgentFile(t, "intern.md"); got != want {
		t.Fatalf("intern.md after typing into the editor:\n%q\nwant\n%q", got, want)
	}
	// The page after the save shows the saved body in the editor again.
	waitEditor(t, ctx, "field-body")
	if got := editorText(t, ctx, "field-body"); got != strings.TrimSuffix(body, "\n")+"\n" && got != body {
		t.Errorf("the editor shows %q after the save", got)
	}
	screenshot(t, ctx, "code-editor-body-saved")
}

func TestBrowserTypingIntoTheRawEditorSavesTheFileByteForByte(t *testing.T) {
	srv := startBrowserServer(t, team)
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(srv.URL+"/agents/intern"), chromedp.WaitVisible(tid("agent-form")),
		chromedp.Click(chromedp.CSS(`[data-testid="raw-file"] > summary`)))
	file := "---\nname: intern\ndescription: 'Helps: with quotes, colons # and ü'\nx-kept: 1\n---\nLine one.\n\n  Indented by two.\nNo newline at the end"
	typeInto(t, ctx, "raw-text", file)
	run(t, ctx, chromedp.Click(tid("save-raw")))
	waitText(t, ctx, "saved", "intern.md")
	if got := srv.ReadAgentFile(t, "intern.md"); got != file {
		t.Fatalf("intern.md after the raw edit:\n%q\nwant\n%q", got, file)
	}
}

func TestBrowserTheRawEditorMarksTheLinesWithProblems(t *testing.T) {
	srv := startBrowserServer(t, awkward)
	ctx := newBrowser(t)

	// typos.md: "execution: paralel" is line 5, "max_turns: many" line 6.
	run(t, ctx, chromedp.Navigate(srv.URL+"/agents/typos"), chromedp.WaitVisible(tid("agent-form")),
		chromedp.Click(chromedp.CSS(`[data-testid="raw-file"] > summary`)))
	waitEditor(t, ctx, "raw-text")
	if got := strings.Join(markedLines(t, ctx, "raw-text", "error"), ","); got != "5,6" {
		t.Errorf("error markers at lines %q, want 5,6", got)
	}
	underlined, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(`+shadowOf("raw-text")+
		`.querySelectorAll('.cm-lintRange-error'), e => e.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(underlined, "|") != "execution: paralel|max_turns: many" {
		t.Errorf("underlined text %q", underlined)
	}
	// The message shows when the pointer rests on the marked text.
	run(t, ctx, chromedp.ScrollIntoView(tid("editor-raw-text")))
	pos, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => { const r = `+shadowOf("raw-text")+
		`.querySelector('.cm-lintRange-error').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`))
	if err != nil {
		t.Fatal(err)
	}
	run(t, ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(ctx, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: pos[0], Y: pos[1]})
		return err
	}))
	waitJS(t, ctx, shadowOf("raw-text")+`.querySelector('.cm-tooltip-lint')?.textContent.includes('"paralel" is not one of') ?? false`,
		"the problem's message on hover")
	screenshot(t, ctx, "code-editor-raw-markers")

	// A YAML error: the marker is at line 3 and the editor replaces the numbered listing.
	run(t, ctx, chromedp.Navigate(srv.URL+"/agents/file/yaml-broken.md"))
	waitEditor(t, ctx, "raw-text")
	if got := strings.Join(markedLines(t, ctx, "raw-text", "error"), ","); got != "3" {
		t.Errorf("error markers at lines %q, want 3", got)
	}
	waitJS(t, ctx, `document.querySelector('[data-testid="raw-lines"]').hidden`, "the numbered listing to give way to the editor")
	screenshot(t, ctx, "code-editor-yaml-error")

	// Fixed in the editor, the file saves and the markers are gone.
	fixed := "---\nname: broken\ndescription: Fixed in the editor.\n---\nX.\n"
	typeInto(t, ctx, "raw-text", fixed)
	run(t, ctx, chromedp.Click(tid("save-raw")))
	waitText(t, ctx, "saved", "yaml-broken.md")
	if got := srv.ReadAgentFile(t, "yaml-broken.md"); got != fixed {
		t.Fatalf("yaml-broken.md after the fix:\n%q", got)
	}
}

func TestBrowserReadOnlyEditorsRefuseTyping(t *testing.T) {
	srv := startBrowserServer(t, team)
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(srv.URL+"/agents/intern"), chromedp.WaitVisible(tid("agent-form")))
	outside := "---\nname: intern\ndescription: Changed in another editor.\n---\nYou help.\n"
	srv.WriteAgentFile(t, "intern.md", outside)
	srv.WaitRegistry(t, "intern.md", outside)
	typeInto(t, ctx, "field-body", "Mine.")
	// The preview's answer moves the Save button: click it where it ends up.
	waitText(t, ctx, "preview", "Mine.")
	run(t, ctx, chromedp.Click(tid("save")))
	waitText(t, ctx, "conflict", "changed on disk")

	// Both versions are read-only editors; keys typed into one change nothing.
	waitEditor(t, ctx, "conflict-disk")
	waitEditor(t, ctx, "conflict-yours")
	before := editorText(t, ctx, "conflict-disk")
	if !strings.Contains(before, "Changed in another editor.") {
		t.Fatalf("the disk version shows %q", before)
	}
	ro, err := chromedp.Run(ctx, chromedp.Evaluate[string](shadowOf("conflict-disk")+`.querySelector('.cm-content').getAttribute('aria-readonly')`))
	if err != nil || ro != "true" {
		t.Errorf("aria-readonly = %q (err %v)", ro, err)
	}
	focus := fmt.Sprintf(`(() => { %s.querySelector('.cm-content').focus(); return true; })()`, shadowOf("conflict-disk"))
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](focus)); err != nil {
		t.Fatal(err)
	}
	run(t, ctx, chromedp.KeyEvent("typed\n"))
	if after := editorText(t, ctx, "conflict-disk"); after != before {
		t.Errorf("a read-only editor took the keys: %q", after)
	}
	screenshot(t, ctx, "code-editor-conflict-readonly")
	if got := srv.ReadAgentFile(t, "intern.md"); got != outside {
		t.Fatalf("the outside edit was overwritten:\n%s", got)
	}
}

func TestBrowserEditorColoursFollowDarkMode(t *testing.T) {
	srv := startBrowserServer(t, team)
	ctx := newBrowser(t)
	scheme := func(s string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: s}}})
			return err
		})
	}
	colours := func() map[string]string {
		t.Helper()
		c, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`(() => {
			const r = `+shadowOf("field-body")+`, css = e => getComputedStyle(e);
			return {
				editor: css(r.querySelector('.cm-editor')).backgroundColor,
				text: css(r.querySelector('.cm-content')).color,
				gutter: css(r.querySelector('.cm-gutters')).backgroundColor,
				heading: css(Array.from(r.querySelectorAll('.cm-line span')).find(s => s.textContent === ' Lead' || s.textContent === 'Lead')).color,
				theme: r.querySelector('.cm-editor').className,
				pageStyles: String(document.querySelectorAll('style').length),
			}; })()`))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	check := func(got, want map[string]string) {
		t.Helper()
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s = %q, want %q", k, got[k], w)
			}
		}
	}
	lead := "---\nname: lead\ndescription: Leads.\n---\n# Lead\n\nYou lead.\n"
	srv.WriteAgentFile(t, "lead.md", lead)
	srv.WaitRegistry(t, "lead.md", lead)
	run(t, ctx, scheme("dark"), chromedp.Navigate(srv.URL+"/agents/lead"), chromedp.WaitVisible(tid("agent-form")))
	waitEditor(t, ctx, "field-body")
	// style.css's dark palette: --card #1f2023, --fg #e6e6e3, --bg #17181a,
	// --accent #78aeff (headings). No <style> element reached the page: the
	// editor's styles live in its shadow root, under the CSP.
	dark := colours()
	check(dark, map[string]string{"editor": "rgb(31, 32, 35)", "text": "rgb(230, 230, 227)", "gutter": "rgb(23, 24, 26)",
		"heading": "rgb(120, 174, 255)", "pageStyles": "0"})
	screenshot(t, ctx, "code-editor-dark")

	// Switching the system to light recolours the open editor, built-in parts included.
	run(t, ctx, scheme("light"))
	// CodeMirror's own parts (search panel, tooltips) follow its light/dark
	// theme class, which changes on the media query's change event.
	waitJS(t, ctx, fmt.Sprintf(`%s.querySelector('.cm-editor').className !== %q`, shadowOf("field-body"), dark["theme"]),
		"CodeMirror's theme class to switch to light")
	check(colours(), map[string]string{"editor": "rgb(255, 255, 255)", "text": "rgb(29, 31, 33)", "gutter": "rgb(251, 251, 250)",
		"heading": "rgb(26, 95, 180)"})
}

func TestBrowserWithoutJavaScriptTheTextareaStillSaves(t *testing.T) {
	srv := startBrowserServer(t, team)
	ctx := newBrowser(t)
	noJS := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	})
	run(t, ctx, noJS, chromedp.Navigate(srv.URL+"/agents/intern"), chromedp.WaitVisible(tid("field-body")),
		chromedp.Clear(tid("field-body")),
		chromedp.SendKeys(tid("field-body"), "Typed without JavaScript.\n\nSecond paragraph.\n"))
	screenshot(t, ctx, "code-editor-no-js")
	follow(t, ctx, tid("save"), "saved")
	want := "---\nname: intern\ndescription: Helps.\n---\nTyped without JavaScript.\n\nSecond paragraph.\n"
	if got := srv.ReadAgentFile(t, "intern.md"); got != want {
		t.Fatalf("intern.md after a save without JavaScript:\n%q", got)
	}
}
