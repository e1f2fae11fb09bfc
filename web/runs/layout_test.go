package runs

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
)

func TestAViewSurvivesItsQueryString(t *testing.T) {
	v := view{Mode: "all", Open: []string{"a", "b"}, Shut: []string{"c"}, Show: []string{"d"}, Crit: true,
		Find: trace.SpanQuery{Agent: "x", Status: trace.StatusError, Tool: "web.fetch", Text: "two words"}}
	q, _ := url.ParseQuery(v.values().Encode())
	if got := parseView(q); got.key() != v.key() || !slices.Equal(got.Open, v.Open) || got.Find != v.Find {
		t.Errorf("parseView(values) = %+v, want %+v", got, v)
	}
	if got := parseView(url.Values{"open": {"all"}}); got.Mode != "all" || len(got.Open) != 0 {
		t.Errorf("the old ?open=all reads as %+v, want mode all", got)
	}
	if got := parseView(url.Values{"mode": {"<script>"}}); got.Mode != "" {
		t.Errorf("an unknown mode is kept: %q", got.Mode)
	}
	many := make([]string, 500)
	for i := range many {
		many[i] = "s" + string(rune('a'+i%26))
	}
	if got := parseView(url.Values{"shut": many, "show": many}); len(got.Shut) != maxToggles || len(got.Show) != maxRevealed {
		t.Errorf("a view keeps %d closed rows and %d revealed spans, want at most %d and %d", len(got.Shut), len(got.Show), maxToggles, maxRevealed)
	}
}

func TestTheVisibleRowsOfADeepChain(t *testing.T) {
	run, spans := deepChain(20_000)
	tl := BuildTimeline(run, spans, ms(0))
	if got := len(tl.visible(view{})); got != VisibleRows {
		t.Errorf("the default view of a 20,000-deep chain shows %d rows, want the %d levels that fit", got, VisibleRows)
	}
	if got := len(tl.visible(view{Mode: "all"})); got != 20_000 {
		t.Errorf("expand all shows %d rows, want 20000", got)
	}
	v := view{Mode: "all"}
	v.act(&tl, "collapse", "s9")
	if got := len(tl.visible(v)); got != 10 {
		t.Errorf("with row 10 closed, %d rows show, want 10", got)
	}
	v.act(&tl, "expand", "s9")
	if got := len(tl.visible(v)); got != 20_000 {
		t.Errorf("with row 10 open again, %d rows show, want 20000", got)
	}
	if got := len(tl.visible(view{Mode: "none"})); got != 1 {
		t.Errorf("collapse all shows %d rows, want the root", got)
	}
}

func TestTheRollupFoldsAgentsPastItsLimit(t *testing.T) {
	run, spans := deepChain(200) // 100 agents, a0 … a99
	spans[7].Status = trace.StatusError
	tl := BuildTimeline(run, spans, ms(0))
	if len(tl.Rollup) != maxRollup {
		t.Fatalf("rollup has %d lines, want %d", len(tl.Rollup), maxRollup)
	}
	last := tl.Rollup[maxRollup-1]
	if last.Agent != "61 other agents" || !last.Folded {
		t.Errorf("last line = %+v, want the 61 other agents folded", last)
	}
	inv, notOK := 0, 0
	for _, r := range tl.Rollup {
		inv, notOK = inv+r.Invocations, notOK+r.NotOK
	}
	if inv != 100 || notOK != tl.NotOK {
		t.Errorf("the rollup sums %d invocations and %d not ok, want 100 and %d", inv, notOK, tl.NotOK)
	}
}

func TestALayoutFollowsTheRunAndKeepsItsRowsOtherwise(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := memory.New()
		run, spans := fanOut()
		run.Status, run.EndedAt = trace.StatusRunning, time.Time{}
		if err := store.Apply(context.Background(), []trace.Run{run}, spans[:3]); err != nil {
			t.Fatal(err)
		}
		var ls layouts
		var l *layout
		get := func() (*Timeline, int) {
			t.Helper()
			lay, tl, v, err := ls.current(context.Background(), store, "r1", ms(2000))
			if err != nil {
				t.Fatal(err)
			}
			if l != nil && lay != l {
				t.Fatal("the run's layout was not kept")
			}
			l = lay
			return tl, v
		}
		tl, v1 := get()
		if tl.Spans != 3 || l.spans == nil {
			t.Fatalf("first layout: %d spans, kept %v; want 3, kept while running", tl.Spans, l.spans != nil)
		}
		time.Sleep(time.Second)
		if _, v := get(); v != v1 {
			t.Errorf("an unchanged run was laid out again (version %d → %d)", v1, v)
		}
		if err := store.Apply(context.Background(), nil, spans[3:]); err != nil {
			t.Fatal(err)
		}
		if tl, _ := get(); tl.Spans != 3 {
			t.Errorf("the store was asked again within %v: %d spans", layoutRecheck, tl.Spans)
		}
		time.Sleep(layoutRecheck)
		tl, v2 := get()
		if tl.Spans != 7 || v2 == v1 {
			t.Errorf("after the run changed: %d spans, version %d; want 7, a new version", tl.Spans, v2)
		}
		run.Status, run.EndedAt = trace.StatusOK, ms(1000)
		if err := store.Apply(context.Background(), []trace.Run{run}, nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(layoutRecheck)
		if tl, _ := get(); tl.Run.Status != trace.StatusOK || l.spans != nil {
			t.Errorf("an ended run: status %s, spans kept %v; want ok and only its rows kept", tl.Run.Status, l.spans != nil)
		}
		// A run the store does not hold is not kept, and evicts nothing.
		for _, id := range []string{"a", "b", "c"} {
			ls.keep(ls.of(id))
		}
		if _, _, _, err := ls.current(context.Background(), store, "nosuch", ms(2000)); !errors.Is(err, trace.ErrNotFound) {
			t.Errorf("an unknown run: err %v, want trace.ErrNotFound", err)
		}
		if _, ok := ls.runs["r1"]; !ok || len(ls.runs) != maxLayouts || ls.runs["nosuch"] != nil {
			t.Errorf("after an unknown run, %d layouts kept, r1 among them %v; want %d, r1's kept, none for the unknown run", len(ls.runs), ok, maxLayouts)
		}
		// Only the last few runs are kept.
		ls.keep(ls.of("d"))
		if _, ok := ls.runs["r1"]; ok || len(ls.runs) != maxLayouts {
			t.Errorf("%d layouts kept, r1 among them %v; want %d, the oldest gone", len(ls.runs), ok, maxLayouts)
		}
		// ... and only so many rows: over the budget, the older ones go.
		ls.runs["d"].size.Store(maxLayoutRows + 1)
		ls.keep(ls.of("e"))
		if _, ok := ls.runs["e"]; !ok || len(ls.runs) != 1 {
			t.Errorf("over the row budget, %d layouts kept; want e alone, the one just asked for", len(ls.runs))
		}
	})
}
