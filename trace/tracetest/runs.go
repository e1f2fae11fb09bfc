package tracetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/internal/storekit"
)

func testRunRoundTrip(t *testing.T, s trace.Store) {
	want := trace.Run{
		ID: trace.NewRunID(), Agent: "research-coordinator", Task: "Q4 trends", Model: "demo",
		Status: trace.StatusOK, StartedAt: base, EndedAt: at(1500), Result: "up 12%",
		Error: "", InputTokens: 120, OutputTokens: 34, Agents: 3, CostUSD: 0.0123,
	}
	mustApply(t, s, []trace.Run{want}, nil)
	got, err := s.Run(ctx(t), want.ID)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	checkRun(t, got, want)
	if got.StartedAt.Location() != time.UTC {
		t.Errorf("StartedAt in %v, want UTC", got.StartedAt.Location())
	}
}

func testRunReplaced(t *testing.T, s trace.Store) {
	r := run("r1", "a", "task", 0)
	mustApply(t, s, []trace.Run{r}, nil)
	r.Status, r.EndedAt, r.Result, r.OutputTokens = trace.StatusError, at(20), "partial", 7
	r.Error = "model failed"
	mustApply(t, s, []trace.Run{r}, nil)
	got, err := s.Run(ctx(t), "r1")
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	checkRun(t, got, r)
}

func testRunNotFound(t *testing.T, s trace.Store) {
	if _, err := s.Run(ctx(t), "nope"); !errors.Is(err, trace.ErrNotFound) {
		t.Errorf("Run(nope) = %v, want ErrNotFound", err)
	}
	// The CLI shows these errors as they are: they name the run, not the call.
	if _, err := s.Export(ctx(t), "nope"); !errors.Is(err, trace.ErrNotFound) || err.Error() != `run "nope": not found` {
		t.Errorf("Export(nope) = %v, want ErrNotFound worded run \"nope\": not found", err)
	}
	spans, err := s.Spans(ctx(t), "nope")
	if err != nil || len(spans) != 0 {
		t.Errorf("Spans(nope) = %v, %v; want none, nil", spans, err)
	}
}

func testApplyInvalid(t *testing.T, s trace.Store) {
	cases := []struct {
		name  string
		runs  []trace.Run
		spans []trace.Span
	}{
		{"a run without id", []trace.Run{run("ok", "a", "", 0), {Agent: "a"}}, nil},
		{"a span without run id", []trace.Run{run("ok", "a", "", 0)}, []trace.Span{{ID: "s1"}}},
		{"a span without id", []trace.Run{run("ok", "a", "", 0)}, []trace.Span{{RunID: "ok"}}},
	}
	for _, c := range cases {
		if err := s.Apply(ctx(t), c.runs, c.spans); !errors.Is(err, trace.ErrInvalid) {
			t.Errorf("%s: Apply = %v, want ErrInvalid", c.name, err)
		}
	}
	if _, err := s.Run(ctx(t), "ok"); !errors.Is(err, trace.ErrNotFound) {
		t.Errorf("after rejected applies, Run(ok) = %v, want ErrNotFound", err)
	}
}

// seedRuns applies runs r0..r(n-1), one second apart, r(n-1) newest.
func seedRuns(t *testing.T, s trace.Store, n int) []trace.Run {
	var runs []trace.Run
	for i := range n {
		runs = append(runs, run(fmt.Sprintf("r%02d", i), "a", fmt.Sprint("task ", i), i*1000))
	}
	mustApply(t, s, runs, nil)
	slices.Reverse(runs)
	return runs
}

func testRunFilters(t *testing.T, s trace.Store) {
	runs := []trace.Run{
		{ID: "r1", Agent: "coordinator", Task: "Summarise Q4 sales", Status: trace.StatusOK, StartedAt: at(0), EndedAt: at(5), Result: "Sales up"},
		{ID: "r2", Agent: "analyst", Task: "Plot revenue", Status: trace.StatusError, StartedAt: at(1000), EndedAt: at(1005), Result: "100% done_ish"},
		{ID: "r3", Agent: "coordinator", Task: "Find sources", Status: trace.StatusRunning, StartedAt: at(2000)},
		{ID: "r4", Agent: "coordinator", Task: "Check citations", Status: trace.StatusOK, StartedAt: at(3000), EndedAt: at(3100), Result: "all sales figures cited"},
		{ID: "r5", Agent: "analyst", Task: "ÜBER Umsätze", Status: trace.StatusOK, StartedAt: at(4000), EndedAt: at(4100), Result: "ΣΥΝΟΛΟ 42"},
	}
	mustApply(t, s, runs, nil)
	cases := []struct {
		name string
		f    trace.RunFilter
		want []string
	}{
		{"no filter lists every run newest first", trace.RunFilter{}, []string{"r5", "r4", "r3", "r2", "r1"}},
		{"agent keeps that agent's runs", trace.RunFilter{Agent: "coordinator"}, []string{"r4", "r3", "r1"}},
		{"status keeps runs with that status", trace.RunFilter{Status: trace.StatusOK}, []string{"r5", "r4", "r1"}},
		{"since is inclusive", trace.RunFilter{Since: at(1000)}, []string{"r5", "r4", "r3", "r2"}},
		{"until is exclusive", trace.RunFilter{Until: at(2000)}, []string{"r2", "r1"}},
		{"text matches task or result ignoring case", trace.RunFilter{Text: "SALES"}, []string{"r4", "r1"}},
		{"text ignores case beyond ASCII in the task", trace.RunFilter{Text: "über umsÄTZE"}, []string{"r5"}},
		{"text ignores case beyond ASCII in the result", trace.RunFilter{Text: "σΥνολο"}, []string{"r5"}},
		{"text percent and underscore match literally", trace.RunFilter{Text: "100% done_"}, []string{"r2"}},
		{"a percent sign alone is not a wildcard", trace.RunFilter{Text: "%"}, []string{"r2"}},
		{"filters combine", trace.RunFilter{Agent: "coordinator", Status: trace.StatusOK, Since: at(1)}, []string{"r4"}},
		{"nothing matching is an empty page", trace.RunFilter{Agent: "nobody"}, nil},
	}
	for _, c := range cases {
		page, err := s.Runs(ctx(t), c.f)
		if err != nil {
			t.Errorf("%s: Runs: %v", c.name, err)
			continue
		}
		if got := runIDs(page.Runs); !slices.Equal(got, c.want) && len(got)+len(c.want) > 0 {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
		if page.More || page.Next != "" {
			t.Errorf("%s: More=%v Next=%q on a complete page", c.name, page.More, page.Next)
		}
	}
}

func testRunPaging(t *testing.T, s trace.Store) {
	all := seedRuns(t, s, 7)
	var got []string
	f := trace.RunFilter{Limit: 3}
	for pages := 1; ; pages++ {
		page, err := s.Runs(ctx(t), f)
		if err != nil {
			t.Fatalf("Runs: %v", err)
		}
		got = append(got, runIDs(page.Runs)...)
		if !page.More {
			if page.Next != "" || pages != 3 {
				t.Errorf("last page %d has Next %q; want page 3 with none", pages, page.Next)
			}
			break
		}
		if pages > 3 || page.Next == "" {
			t.Fatalf("page %d: More with Next %q", pages, page.Next)
		}
		f.Cursor = page.Next
	}
	if want := runIDs(all); !slices.Equal(got, want) {
		t.Errorf("pages gave %v, want %v", got, want)
	}
	page, err := s.Runs(ctx(t), trace.RunFilter{Limit: 2, Offset: 4})
	if err != nil {
		t.Fatalf("Runs with offset: %v", err)
	}
	if want := runIDs(all[4:6]); !slices.Equal(runIDs(page.Runs), want) || !page.More {
		t.Errorf("offset 4 limit 2 gave %v more=%v, want %v more=true", runIDs(page.Runs), page.More, want)
	}
}

func testBadCursor(t *testing.T, s trace.Store) {
	if _, err := s.Runs(ctx(t), trace.RunFilter{Cursor: "garbage"}); !errors.Is(err, trace.ErrInvalid) {
		t.Errorf("Runs(bad cursor) = %v, want ErrInvalid", err)
	}
}

func testDelete(t *testing.T, s trace.Store) {
	mustApply(t, s, []trace.Run{run("r1", "a", "", 0), run("r2", "a", "", 1)},
		[]trace.Span{span("r1", "s1", "", trace.KindInvokeAgent, "a", 0, 5), span("r2", "s1", "", trace.KindInvokeAgent, "a", 1, 5)})
	if err := s.Delete(ctx(t), "r1"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := s.Run(ctx(t), "r1"); !errors.Is(err, trace.ErrNotFound) {
		t.Errorf("Run after Delete = %v, want ErrNotFound", err)
	}
	if spans, _ := s.Spans(ctx(t), "r1"); len(spans) != 0 {
		t.Errorf("deleted run still has spans %v", spanIDs(spans))
	}
	if spans, _ := s.Spans(ctx(t), "r2"); len(spans) != 1 {
		t.Errorf("other run lost its spans: %v", spanIDs(spans))
	}
	if err := s.Delete(ctx(t), "r1"); !errors.Is(err, trace.ErrNotFound) {
		t.Errorf("second Delete = %v, want ErrNotFound", err)
	}
}

func testConcurrent(t *testing.T, s trace.Store) {
	const writers, perWriter = 4, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers*perWriter*2)
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				id := fmt.Sprintf("w%d-%d", w, i)
				r := run(id, "a", "t", w*perWriter+i)
				sp := span(id, "s", "", trace.KindInvokeAgent, "a", w*perWriter+i, -1)
				if err := s.Apply(ctx(t), []trace.Run{r}, []trace.Span{sp}); err != nil {
					errs <- err
				}
				if _, err := s.Runs(ctx(t), trace.RunFilter{Limit: 5}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	page, err := s.Runs(ctx(t), trace.RunFilter{Limit: trace.MaxLimit})
	if err != nil || len(page.Runs) != writers*perWriter {
		t.Errorf("after concurrent writes: %d runs, %v; want %d", len(page.Runs), err, writers*perWriter)
	}
}

// testRunsByCost checks SortCost: most expensive first, ties newest first,
// paged by offset, and a cursor refused.
func testRunsByCost(t *testing.T, s trace.Store) {
	runs := []trace.Run{run("c1", "a", "t", 0), run("c2", "a", "t", 10), run("c3", "a", "t", 20), run("c4", "a", "t", 30)}
	runs[0].CostUSD, runs[1].CostUSD, runs[2].CostUSD, runs[3].CostUSD = 0.5, 2.25, 0, 0.5
	mustApply(t, s, runs, nil)
	page, err := s.Runs(ctx(t), trace.RunFilter{Sort: trace.SortCost, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(runIDs(page.Runs), " "); got != "c2 c4 c1" || !page.More {
		t.Errorf("by cost = %s (more %v), want c2 c4 c1 and more", got, page.More)
	}
	page, err = s.Runs(ctx(t), trace.RunFilter{Sort: trace.SortCost, Limit: 3, Offset: 3})
	if err != nil || strings.Join(runIDs(page.Runs), " ") != "c3" {
		t.Errorf("second page by cost = %v, %v; want c3", runIDs(page.Runs), err)
	}
	if _, err := s.Runs(ctx(t), trace.RunFilter{Sort: trace.SortCost, Cursor: storekit.Cursor(runs[0])}); !errors.Is(err, trace.ErrInvalid) {
		t.Errorf("a cursor with the cost order = %v, want ErrInvalid", err)
	}
}
