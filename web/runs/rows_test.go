package runs_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
	"github.com/agentry/agentry/trace/semconv"
	"github.com/agentry/agentry/trace/sqlite"
	"github.com/agentry/agentry/web"
	"github.com/agentry/agentry/web/core"
	"github.com/agentry/agentry/web/runs"
)

// rowIDs are the span IDs of the rows (span and group rows) in a page or
// window, in order.
func rowIDs(doc *html.Node) []string {
	var ids []string
	for _, r := range findAll(doc, "span-row") {
		ids = append(ids, attr(r.Parent, "data-id"))
	}
	return ids
}

// allRows are the data-id of every row, group rows included, in order.
func allRows(doc *html.Node) []string {
	var ids []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && strings.Contains(" "+attr(n, "class")+" ", " tl-node ") {
			ids = append(ids, attr(n, "data-id"))
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return ids
}

// windowOf reads a window's numbers and view.
func windowOf(t *testing.T, doc *html.Node) (from, total int, view string) {
	t.Helper()
	w := find(doc, "rows-window")
	if w == nil {
		t.Fatal("no rows window")
	}
	from, _ = strconv.Atoi(attr(w, "data-from"))
	total, _ = strconv.Atoi(attr(w, "data-total"))
	return from, total, attr(w, "data-view")
}

func TestABigRunSendsOneWindowOfRows(t *testing.T) {
	e := newRunsEnv(t)
	run, spans := bigRun(2_000)
	if err := e.store.Apply(context.Background(), []trace.Run{run}, spans); err != nil {
		t.Fatal(err)
	}
	resp, err := e.Client.Get(e.HTTP.URL + "/runs/big")
	if err != nil {
		t.Fatal(err)
	}
	status, doc := e.Parse(resp)
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	// 500 delegations to 20 workers: 20 group rows of 25 under the root.
	if got := allRows(doc); len(got) != 21 || got[1] != "group:root:worker-0" {
		t.Fatalf("the page opens on %d rows %v, want the root and 20 groups", len(got), got)
	}
	if got := textOf(find(doc, "axis-counts")); got != "2000 spans · 71 not ok" {
		t.Errorf("axis = %q, want every span counted", got)
	}
	// Expanding a group is one request; its delegations come in start order.
	_, frag := e.Get("/runs/big/rows?act=expand&id=group:root:worker-0")
	got := allRows(frag)
	if len(got) != 46 || got[2] != "d0" || got[3] != "d20" {
		t.Fatalf("after expanding worker-0's group: %d rows %v", len(got), got)
	}
	_, _, v := windowOf(t, frag)
	q, _ := url.ParseQuery(v)
	q.Set("act", "expand")
	q.Set("id", "d0")
	_, frag = e.Get("/runs/big/rows?" + q.Encode())
	if got := allRows(frag); got[3] != "w0" || got[4] != "d20" {
		t.Errorf("expanding d0 in that view shows %v, want w0 under it (its own rows collapsed)", got[:6])
	}
	// Expand all: every span and group, a window at a time, through the
	// pager a reader without JavaScript follows.
	_, doc = e.Get("/runs/big?act=all")
	from, total, _ := windowOf(t, doc)
	if from != 0 || total != 2_020 || len(allRows(doc)) != 100 {
		t.Fatalf("expand all: window from %d of %d with %d rows, want 100 of 2020", from, total, len(allRows(doc)))
	}
	seen := map[string]bool{}
	for pages := 0; ; pages++ {
		for _, id := range allRows(doc) {
			seen[id] = true
		}
		next := find(doc, "pager-next")
		if next == nil {
			break
		}
		if pages > 30 {
			t.Fatal("the pager never ends")
		}
		_, doc = e.Get(attr(next, "href"))
	}
	if len(seen) != 2_020 {
		t.Errorf("paging through every row met %d distinct rows, want 2020", len(seen))
	}
	// A window past the end is the last one.
	_, frag = e.Get("/runs/big/rows?mode=all&from=99999")
	if from, _, _ := windowOf(t, frag); from != 1_920 {
		t.Errorf("a window past the end starts at %d, want the last full window at 1920", from)
	}
	if status, _ := e.Get("/runs/nope/rows"); status != http.StatusNotFound {
		t.Errorf("rows of an unknown run answered %d", status)
	}
}

func TestNextErrorOpensTheGroupThatHidesAFailure(t *testing.T) {
	e := newRunsEnv(t)
	run, spans := bigRun(2_000) // every 7th worker's tool call fails
	if err := e.store.Apply(context.Background(), []trace.Run{run}, spans); err != nil {
		t.Fatal(err)
	}
	_, frag := e.Get("/runs/big/rows?act=next")
	w := find(frag, "rows-window")
	target := attr(w, "data-target")
	if target != "w3t" {
		t.Fatalf("next error went to %q, want w3t, the first failure", target)
	}
	if !slices.Contains(rowIDs(frag), "w3t") {
		t.Fatalf("the window around the failure does not hold it: %v", rowIDs(frag))
	}
	_, _, v := windowOf(t, frag)
	q, _ := url.ParseQuery(v)
	q.Set("act", "next")
	q.Set("id", target)
	_, frag = e.Get("/runs/big/rows?" + q.Encode())
	// In tree order: worker-3's group holds d3, d23, ...; the next failure
	// in it is worker 143's (143 % 20 == 3 and 143 % 7 == 3).
	if got := attr(find(frag, "rows-window"), "data-target"); got != "w143t" {
		t.Errorf("the next one after w3t is %q, want w143t", got)
	}
	if !slices.Contains(rowIDs(frag), "w143t") || !slices.Contains(rowIDs(frag), "w3t") {
		t.Errorf("both failures should show, the first still revealed: %v", rowIDs(frag))
	}
}

func TestAGroupRowSummarisesItsDelegations(t *testing.T) {
	e := newRunsEnv(t)
	run := trace.Run{ID: "fan", Agent: "coord", Status: trace.StatusOK, StartedAt: t0, EndedAt: ms(1000)}
	spans := []trace.Span{{ID: "root", RunID: "fan", Kind: trace.KindInvokeAgent, Name: "invoke_agent coord", Agent: "coord",
		Status: trace.StatusOK, StartedAt: t0, EndedAt: ms(1000)}}
	for i := range 100 {
		st, dur := trace.StatusOK, 40
		if i >= 98 {
			st, dur = trace.StatusError, 310
		}
		spans = append(spans, trace.Span{ID: fmt.Sprintf("d%02d", i), RunID: "fan", ParentID: "root", Kind: trace.KindExecuteTool,
			Name: "execute_tool delegate", Agent: "coord", Status: st, StartedAt: ms(100 + i), EndedAt: ms(100 + i + dur),
			Attributes: map[string]any{semconv.AttrTargetAgent: "leaf"}})
	}
	if err := e.store.Apply(context.Background(), []trace.Run{run}, spans); err != nil {
		t.Fatal(err)
	}
	_, doc := e.Get("/runs/fan")
	g := find(doc, "group-row")
	if g == nil {
		t.Fatalf("no group row among %v", allRows(doc))
	}
	if got, want := textOf(find(doc, "group-text")), "100 × leaf, 98 ok, 2 error, p50 40 ms, p99 310 ms"; got != want {
		t.Errorf("group text = %q, want %q", got, want)
	}
	if name := textOf(find(g, "")); !strings.Contains(name, "leaf") {
		t.Errorf("the label column lost the agent's name: %q", name)
	}
	bar := findClass(g, "tl-bar")
	if l, w := attr(bar, "data-l"), attr(bar, "data-w"); l != "10.000" || w != "40.900" {
		t.Errorf("envelope at %s%% wide %s%%, want from 100 ms to 509 ms of 1 s", l, w)
	}
	if len(rowIDs(doc)) != 1 {
		t.Errorf("the group starts open: %v", rowIDs(doc))
	}
}

// findClass is the first element under n with class c.
func findClass(n *html.Node, c string) *html.Node {
	if n.Type == html.ElementNode && strings.Contains(" "+attr(n, "class")+" ", " "+c+" ") {
		return n
	}
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		if f := findClass(k, c); f != nil {
			return f
		}
	}
	return nil
}

// TestFindWithinARun runs the same finds against the memory store (which
// has no index: it scans) and SQLite (FTS5).
func TestFindWithinARun(t *testing.T) {
	type store interface {
		trace.Store
		runs.RunStore
	}
	stores := map[string]func(t *testing.T) store{
		"memory": func(*testing.T) store { return memory.New() },
		"sqlite": func(t *testing.T) store {
			s, err := sqlite.Open(filepath.Join(t.TempDir(), "traces.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			store := open(t)
			e := newRunsEnv(t, func(c *web.Config) { c.Runs = store })
			run, spans := bigRun(2_000)
			for i := range spans {
				if spans[i].Kind == trace.KindInvokeAgent {
					spans[i].Attributes[semconv.AttrTask] = "Summarise chapter " + spans[i].ID
					spans[i].Attributes[semconv.AttrResult] = "Done: a short summary."
				}
			}
			if err := store.Apply(context.Background(), []trace.Run{run}, spans); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				query string
				want  int
				first string
			}{
				{"q=chapter+w7", 1, "w7"},
				{"q=SHORT+summary", 501, "root"},
				{"status=error", 71, "w80t"}, // tree order: worker-0's group comes first
				{"agent=worker-3&tool=filesystem.read_file", 25, "w3t"},
				{"agent=worker-3&tool=filesystem.read_file&status=error", 4, "w3t"},
				{"q=nothing+here", 0, ""},
			} {
				_, doc := e.Get("/runs/big?" + c.query)
				_, total, _ := windowOf(t, doc)
				ids := rowIDs(doc)
				if total != c.want || (c.first != "" && ids[0] != c.first) {
					t.Errorf("find %s: %d spans, first %v; want %d, first %s", c.query, total, ids[:min(3, len(ids))], c.want, c.first)
				}
				if got, want := textOf(find(doc, "found-count")), core.Count(c.want, "span")+" found"; got != want {
					t.Errorf("find %s says %q", c.query, got)
				}
			}
		})
	}
}

func TestCriticalPathOnlyIsAView(t *testing.T) {
	e := newRunsEnv(t)
	e.seedFanOut()
	_, doc := e.Get("/runs/r1?crit=1")
	if got := strings.Join(rowIDs(doc), " "); got != "root chat1 dB slow chat2" {
		t.Errorf("critical path only shows %q", got)
	}
}

// TestThePageWorksWithoutJavaScript follows the links a reader without
// JavaScript has: a row's toggle, Next error, and back to the whole run.
func TestThePageWorksWithoutJavaScript(t *testing.T) {
	e := newRunsEnv(t)
	run, spans := bigRun(2_000)
	if err := e.store.Apply(context.Background(), []trace.Run{run}, spans); err != nil {
		t.Fatal(err)
	}
	_, doc := e.Get("/runs/big")
	group := findID(doc, "group:root:worker-0")
	tog := findClass(group, "tl-tog")
	if tog == nil || attr(tog, "href") == "" {
		t.Fatal("the group's toggle is not a link")
	}
	_, doc = e.Get(attr(tog, "href"))
	if got := allRows(doc); len(got) < 4 || got[2] != "d0" || attr(findID(doc, "group:root:worker-0"), "aria-expanded") != "true" {
		t.Fatalf("following the toggle shows %v", got[:min(4, len(got))])
	}
	_, doc = e.Get(attr(find(doc, "next-error"), "href"))
	if got := attr(find(doc, "rows-window"), "data-target"); got != "w3t" || !slices.Contains(rowIDs(doc), "w3t") {
		t.Errorf("following Next error went to %q with rows %v", got, rowIDs(doc))
	}
	// The toggle of an open row closes it again.
	_, doc = e.Get(attr(findClass(findID(doc, "group:root:worker-0"), "tl-tog"), "href"))
	if got := attr(findID(doc, "group:root:worker-0"), "aria-expanded"); got != "false" {
		t.Errorf("after closing the group again it is aria-expanded=%q", got)
	}
}

// findID is the row element whose data-id is id.
func findID(n *html.Node, id string) *html.Node {
	if n.Type == html.ElementNode && attr(n, "data-id") == id {
		return n
	}
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		if f := findID(k, id); f != nil {
			return f
		}
	}
	return nil
}
