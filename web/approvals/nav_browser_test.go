package approvals_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"

	"github.com/agentry/agentry/web/internal/webtest"
)

// askingTeam: lead asks before it delegates to writer.
var askingTeam = map[string]string{
	"writer.md": "---\nname: writer\ndescription: Writes\n---\nYou write.\n",
	"lead.md":   "---\nname: lead\ndescription: Leads\nsubagents:\n  allow: [writer]\n  ask: [writer]\n---\nYou lead.\n",
}

const askingScript = `lead:
  - calls: [{tool: delegate, args: {agent: writer, task: draft}}]
  - say: led
writer:
  - say: written
`

// The nav's Approvals count follows live on a going run's page: a run that
// asks after the page opened shows its count there without a reload, and
// the count goes when the call is answered. While the tab is hidden the
// badge is not polled. The count only came with a full page load.
func TestBrowserTheNavCountFollowsApprovalsOnALiveRunPage(t *testing.T) {
	site := webtest.StartSite(t, askingTeam, nil)
	if err := os.WriteFile(filepath.Join(site.Scripts, "asking.yaml"), []byte(askingScript), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	watched := trace.NewRunID()
	now := time.Now()
	run := trace.Run{ID: watched, Agent: "writer", Task: "wait", Status: trace.StatusRunning, StartedAt: now, Agents: 1}
	root := trace.Span{ID: watched[:16], RunID: watched, Kind: trace.KindInvokeAgent, Name: "invoke_agent writer",
		Agent: "writer", Status: trace.StatusRunning, StartedAt: now}
	if err := site.Store.Apply(ctx, []trace.Run{run}, []trace.Span{root}); err != nil {
		t.Fatal(err)
	}

	b := webtest.NewBrowser(t)
	webtest.Run(t, b, chromedp.Navigate(site.URL+"/runs/"+watched))
	webtest.WaitJS(t, b, `document.getElementById("tl-page")?.getAttribute("data-ready") === "true"`, "the run page")
	webtest.Run(t, b, chromedp.Evaluate[chromedp.Void](`window.sameDocument = true`))
	if n := evalInt(t, b, `document.querySelectorAll('[data-testid="nav-badge-approvals"]').length`); n != 0 {
		t.Fatalf("%d badges before any run asked", n)
	}

	ex, err := site.Runtime.Start(ctx, delegation.Request{Agent: "lead", Task: "lead the writing", Model: "script:asking.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Cancel(); <-ex.Done() })
	webtest.WaitText(t, b, "nav-badge-approvals", "1")
	if evalInt(t, b, `window.sameDocument ? 1 : 0`) != 1 {
		t.Error("the page was reloaded: the count must follow in place")
	}

	// A hidden tab does not poll.
	webtest.Run(t, b, chromedp.Evaluate[chromedp.Void](`Object.defineProperty(document, "hidden", {value: true, configurable: true})`))
	const polls = `performance.getEntriesByType("resource").filter(e => e.name.includes("/nav/badge")).length`
	before := evalInt(t, b, polls)
	time.Sleep(6 * time.Second) // more than one poll interval
	if after := evalInt(t, b, polls); after != before {
		t.Errorf("the hidden tab polled the badge %d times", after-before)
	}
	webtest.Run(t, b, chromedp.Evaluate[chromedp.Void](`delete document.hidden`))

	pending, err := site.Store.Approvals(ctx, approval.Filter{Status: approval.Pending})
	if err != nil || len(pending) != 1 {
		t.Fatalf("pending approvals: %d, %v", len(pending), err)
	}
	if _, err := site.Store.DecideApproval(ctx, pending[0].ID, approval.Answer{Approve: true, By: "test", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	webtest.WaitJS(t, b, `!document.querySelector('[data-testid="nav-badge-approvals"]')`, "the badge to go once answered")
	if r := ex.Result(); r.Status != trace.StatusOK {
		t.Errorf("the run that asked ended %s: %s", r.Status, r.Error)
	}
}

func evalInt(t *testing.T, ctx context.Context, expr string) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](expr))
	if err != nil {
		t.Fatal(err)
	}
	return n
}
