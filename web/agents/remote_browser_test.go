package agents_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/delegation/a2a"
	"github.com/agentry/agentry/delegation/a2a/a2atest"
	"github.com/agentry/agentry/registry"

	"github.com/agentry/agentry/web"
)

// withRemote is the team calling an A2A agent elsewhere: a real A2A
// server (the SDK's, not agentry) whose card names it echo-agent, resolved
// as serve resolves the a2a: section at start. lead may call it, strict
// may call anyone but it.
var withRemote = map[string]string{
	"lead.md":   "---\nname: lead\ndescription: Leads\nsubagents: {allow: [helper, echo-agent]}\n---\n",
	"strict.md": "---\nname: strict\ndescription: Trusts no one outside\nsubagents: {allow: [\"*\"], deny: [echo-agent]}\n---\n",
	"helper.md": "---\nname: helper\ndescription: Helps\n---\n",
}

// remoteEcho serves the A2A agent and returns its card's URL and what
// serve hands the UI.
func remoteEcho(t *testing.T) (card string, mod func(*web.Config)) {
	t.Helper()
	srv, _ := a2atest.Serve(t)
	remote, problems := a2a.Resolve(context.Background(), []a2a.Agent{{Card: srv.URL}}, nil)
	if len(problems) != 0 || len(remote) != 1 || remote[0].Name != "echo-agent" {
		t.Fatalf("Resolve = %+v, %v", remote, problems)
	}
	return srv.URL, func(c *web.Config) { c.Remote = a2a.Targets(remote) }
}

func TestBrowserGraphShowsARemoteAgentAsATargetOfItsOwnKind(t *testing.T) {
	card, mod := remoteEcho(t)
	srv := startBrowserServer(t, withRemote, mod)
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(srv.URL+"/graph"), chromedp.WaitVisible(tid("node-echo-agent")))
	screenshot(t, ctx, "graph-remote")
	got, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`(() => {
	  const q = id => document.querySelector('[data-testid="' + id + '"]');
	  const stroke = id => { const s = getComputedStyle(q(id).querySelector('rect')); return s.stroke + ' ' + s.strokeDasharray; };
	  return {
	    tag: q('node-echo-agent').tagName, cls: q('node-echo-agent').getAttribute('class'),
	    label: q('node-echo-agent').querySelector('text').textContent.trim(),
	    remote: stroke('node-echo-agent'), local: stroke('node-helper'),
	    lead: q('edge-lead-echo-agent').dataset.kind, strict: q('edge-strict-echo-agent').dataset.kind,
	    row: q('graph-row-echo-agent').textContent, badge: q('remote-echo-agent').textContent,
	    leadRow: q('graph-row-lead').textContent,
	  };
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if got["tag"] != "g" || !strings.Contains(got["cls"], "remote") || got["label"] != "⇄ echo-agent" {
		t.Errorf("node = <%s class=%q> %q, want an unlinked box of class remote", got["tag"], got["cls"], got["label"])
	}
	if got["remote"] == got["local"] {
		t.Errorf("the remote box is drawn as a local one: %s", got["remote"])
	}
	if got["lead"] != "allowed" || got["strict"] != "denied" {
		t.Errorf("edges to echo-agent: lead %q, strict %q; want allowed and denied", got["lead"], got["strict"])
	}
	if !strings.Contains(got["row"], card) || got["badge"] != "remote" || !strings.Contains(got["row"], "An A2A agent elsewhere") {
		t.Errorf("list row = %q, badge %q; want the remote badge and card %s", got["row"], got["badge"], card)
	}
	if !strings.Contains(got["leadRow"], "echo-agent") {
		t.Errorf("lead's row %q does not list echo-agent", got["leadRow"])
	}
	// Dark mode: the remote colour is the dark theme's, still apart from a local box's.
	run(t, ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
		return err
	}))
	dark, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`['node-echo-agent', 'node-helper'].map(id =>
	  getComputedStyle(document.querySelector('[data-testid="' + id + '"] rect')).stroke)`))
	if err != nil {
		t.Fatal(err)
	}
	if dark[0] == dark[1] || strings.HasPrefix(got["remote"], dark[0]+" ") {
		t.Errorf("dark mode: remote stroke %s, local %s, light remote %s: want a dark remote colour of its own", dark[0], dark[1], got["remote"])
	}
	screenshot(t, ctx, "graph-remote-dark")
}

func TestBrowserExplorerDecidesARemoteAgentAndOffersItAsNoLink(t *testing.T) {
	card, mod := remoteEcho(t)
	srv := startBrowserServer(t, withRemote, mod)
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(srv.URL+"/permissions?chain=strict"), chromedp.WaitVisible(tid("decision-subagents-echo-agent")))
	waitText(t, ctx, "reason-echo-agent", `denied by agent "strict": subagents deny pattern "echo-agent"`)
	run(t, ctx, chromedp.Navigate(srv.URL+"/permissions?chain=lead"), chromedp.WaitVisible(tid("remote-echo-agent")))
	waitText(t, ctx, "decision-subagents-echo-agent", "allow")
	waitText(t, ctx, "card-echo-agent", card)
	screenshot(t, ctx, "permissions-remote")
	offered, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="chain-next"] option')].map(o => o.value)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(offered) == 0 || strings.Contains(strings.Join(offered, " "), "echo-agent") {
		t.Errorf("next links %v: echo-agent runs elsewhere and cannot be one", offered)
	}
}

func TestExplorerSaysARemoteAgentCannotBeOnTheChain(t *testing.T) {
	_, mod := remoteEcho(t)
	e := newTestEnv(t, withRemote, mod)
	status, doc := e.Get("/permissions?chain=lead&chain=echo-agent")
	if msg := textOf(find(doc, "explorer-error")); status != http.StatusNotFound || !strings.Contains(msg, "runs elsewhere") {
		t.Errorf("a remote agent on the chain = %d %q", status, msg)
	}
}

// The JSON API's permissions answer is the explorer's: it names the remote
// agent's card too.
func TestTheAPIShowsARemoteAgentAsTheExplorerDoes(t *testing.T) {
	card, mod := remoteEcho(t)
	e := newTestEnv(t, withRemote, mod)
	resp, err := e.Client.Get(e.HTTP.URL + "/api/v1/permissions?agent=lead")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got registry.Explanation
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	_, doc := e.Get("/permissions?chain=lead")
	for _, d := range got.Subagents {
		if d.Agent == "echo-agent" {
			if !d.Allowed || d.Remote != card || textOf(find(doc, "card-echo-agent")) != card {
				t.Errorf("API: %+v; explorer's card %q; want allowed, remote %s", d, textOf(find(doc, "card-echo-agent")), card)
			}
			return
		}
	}
	t.Errorf("API sub-agents %+v lack echo-agent", got.Subagents)
}
