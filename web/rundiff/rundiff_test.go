package rundiff_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/delegation/replay"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
	"github.com/agentry/agentry/web"
	"github.com/agentry/agentry/web/internal/dom"
	"github.com/agentry/agentry/web/internal/webtest"
)

// counter plays web.fetch (a name the registry knows), counting its real calls.
type counter struct{ n atomic.Int64 }

func (c *counter) Spec() model.Tool {
	return model.Tool{Name: "web.fetch", Description: "look up", Parameters: json.RawMessage(`{"type":"object"}`)}
}

func (c *counter) Call(context.Context, json.RawMessage) (string, error) {
	return "fact #" + string(rune('0'+c.n.Add(1))), nil
}

const lead = "---\nname: lead\ndescription: Leads\ntools: [web]\nsubagents: [helper, checker]\n---\nAsk HELPER.\n"

var agents = map[string]string{
	"lead.md":    lead,
	"helper.md":  "---\nname: helper\ndescription: Helps\n---\nHelp.\n",
	"checker.md": "---\nname: checker\ndescription: Checks\n---\nCheck.\n",
}

const before = `
lead:
  - calls: [{tool: web.fetch, args: {url: "https://example.org/sales"}}, {tool: web.fetch, args: {url: "https://example.org/costs"}}]
  - calls: [{tool: delegate, args: {agent: helper, task: "read the facts"}}]
  - say: "sales up"
helper:
  - say: "read"
checker:
  - say: "checked"
`

// after is lead edited to ask checker: the same look-ups, in another order.
const after = `
lead:
  - calls: [{tool: web.fetch, args: {url: "https://example.org/costs"}}, {tool: web.fetch, args: {url: "https://example.org/sales"}}]
  - calls: [{tool: delegate, args: {agent: checker, task: "read the facts"}}]
  - say: "sales up, checked"
helper:
  - say: "read"
checker:
  - say: "checked"
`

func TestTheDiffOfAReplayShowsTheChangedDelegationAndTheRecordedCalls(t *testing.T) {
	store := memory.New()
	srv := webtest.StartBrowserServer(t, agents, func(c *web.Config) { c.Runs = store })
	kb := &counter{}
	run := func(text string, tools []tool.Tool, attrs map[string]any) string {
		sm, err := script.Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		rec := trace.NewRecorder(store, trace.RecorderConfig{})
		rt, err := delegation.New(delegation.Config{Agents: srv.Agents, DefaultModel: "script", Sink: rec, Tools: tools,
			Models: model.Providers{"script": func(string) (model.LLM, error) { return sm, nil }}, Logger: slog.New(slog.DiscardHandler),
			Sleep: func(context.Context, time.Duration) error { return nil }})
		if err != nil {
			t.Fatal(err)
		}
		res, err := rt.Run(context.Background(), delegation.Request{Agent: "lead", Task: "report", Attributes: attrs})
		if err != nil || res.Status != trace.StatusOK {
			t.Fatalf("run: %+v %v", res, err)
		}
		if err := rec.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		return res.RunID
	}
	first := run(before, []tool.Tool{kb}, nil)
	edited := strings.Replace(lead, "Ask HELPER.", "Ask CHECKER.", 1)
	srv.WriteAgentFile(t, "lead.md", edited)
	srv.WaitRegistry(t, "lead.md", edited)
	spans, err := store.Spans(context.Background(), first)
	if err != nil {
		t.Fatal(err)
	}
	rec := replay.New(first, spans)
	second := run(after, rec.Tools([]tool.Tool{kb}, false), map[string]any{replay.AttrReplayOf: first})
	if kb.n.Load() != 2 || rec.Replayed() != 2 || rec.Refused() != 0 {
		t.Fatalf("real calls %d, replayed %d, refused %d; want 2, 2, 0", kb.n.Load(), rec.Replayed(), rec.Refused())
	}

	resp, err := http.Get(srv.URL + "/runs/" + first + "/diff/" + second)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET diff: %d\n%s", resp.StatusCode, body)
	}
	doc := parse(t, body)
	var delegations, recorded []string
	for _, row := range dom.FindAll(doc, "diff-call") {
		if dom.Attr(row, "data-testid") != "diff-call" {
			continue // the table, diff-calls
		}
		text := dom.TextOf(row)
		if dom.Attr(row, "data-delegation") == "true" {
			delegations = append(delegations, dom.Attr(row, "data-change")+": "+text)
		}
		if badge := dom.Find(row, "replay-answer"); strings.Contains(text, "web.fetch") && badge != nil {
			recorded = append(recorded, dom.Attr(row, "data-change")+" "+dom.TextOf(badge))
		}
	}
	if len(delegations) != 1 || !strings.HasPrefix(delegations[0], "changed: ") || !strings.Contains(delegations[0], "target helper → checker") {
		t.Errorf("the delegations in the diff: %q", delegations)
	}
	if strings.Join(recorded, ", ") != "same recorded, same recorded" {
		t.Errorf("the look-ups in the diff: %q, want both the same and answered from the recording", recorded)
	}
	if s := dom.TextOf(dom.Find(doc, "diff-summary")); !strings.Contains(s, "0 calls added, 0 dropped, 1 changed; final answer changed") {
		t.Errorf("summary = %q", s)
	}

	// The replay's page names its original and links to this diff.
	resp, err = http.Get(srv.URL + "/runs/" + second)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	link := dom.Find(parse(t, body), "replay-diff")
	if link == nil || dom.Attr(link, "href") != "/runs/"+first+"/diff/"+second {
		t.Errorf("the replay's page does not link to its diff with the original")
	}
}

func parse(t *testing.T, body []byte) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
