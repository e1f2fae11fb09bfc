package runs_test

import (
	"testing"

	"github.com/chromedp/chromedp"
)

func TestBrowserRepliesToARunWithAFollowUp(t *testing.T) {
	b := startRunsBrowser(t)
	ctx := newBrowser(t)
	startFromForm(t, ctx, b.URL, "coord", "Compare Q4 sales with the sources", "demo")
	waitText(t, ctx, "run-status", "ok")
	first := evalJS[string](t, ctx, `document.querySelector('#tl-page').dataset.run`)
	run(t, ctx,
		chromedp.WaitVisible(tid("reply-box")),
		chromedp.SendKeys(tid("reply-message"), "And what about Q3?"),
		chromedp.Click(tid("reply-send")),
	)
	waitJS(t, ctx, `document.querySelector('#tl-page') && document.querySelector('#tl-page').dataset.run !== "`+first+`"`, "the follow-up's timeline")
	if task := evalJS[string](t, ctx, `document.querySelector('[data-testid=run-task]').textContent`); task != "And what about Q3?" {
		t.Fatalf("the follow-up's task is %q", task)
	}
	if agent := evalJS[string](t, ctx, `document.title`); agent == "" {
		t.Error("the follow-up page has no title")
	}
	screenshot(t, ctx, "run-reply")
}
