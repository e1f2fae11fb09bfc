package runs

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func ms(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }

// sp builds a finished span from start to end milliseconds after t0.
func sp(id, parent string, kind trace.Kind, name string, start, end int, st trace.Status) trace.Span {
	s := trace.Span{
		ID: id, RunID: "r1", ParentID: parent, Kind: kind, Name: string(kind) + " " + name,
		Agent: name, Status: st, StartedAt: ms(start), Attributes: map[string]any{},
	}
	if end >= 0 {
		s.EndedAt = ms(end)
	}
	return s
}

// fanOut is a coordinator that asks a model, delegates to a fast and a slow
// analyst in parallel, and sums up: the classic shape the page exists for.
func fanOut() (trace.Run, []trace.Span) {
	run := trace.Run{ID: "r1", Agent: "coord", Status: trace.StatusOK, StartedAt: ms(0), EndedAt: ms(1000)}
	return run, []trace.Span{
		sp("root", "", trace.KindInvokeAgent, "coord", 0, 1000, trace.StatusOK),
		sp("chat1", "root", trace.KindChat, "demo", 0, 100, trace.StatusOK),
		sp("dA", "root", trace.KindExecuteTool, "delegate", 100, 400, trace.StatusOK),
		sp("dB", "root", trace.KindExecuteTool, "delegate", 100, 900, trace.StatusOK),
		sp("fast", "dA", trace.KindInvokeAgent, "fast", 110, 390, trace.StatusOK),
		sp("slow", "dB", trace.KindInvokeAgent, "slow", 110, 890, trace.StatusError),
		sp("chat2", "root", trace.KindChat, "demo", 900, 1000, trace.StatusOK),
	}
}

func rowsByID(tl Timeline) map[string]*TimelineRow {
	m := map[string]*TimelineRow{}
	for _, r := range tl.Rows {
		m[r.ID] = r
	}
	return m
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func TestBuildTimelinePlacesParallelBranchesSideBySide(t *testing.T) {
	run, spans := fanOut()
	tl := BuildTimeline(run, spans, ms(5000))
	rows := rowsByID(tl)
	if tl.Axis.Total != time.Second {
		t.Fatalf("axis = %v, want the run's 1s", tl.Axis.Total)
	}
	a, b := rows["fast"], rows["slow"]
	if !near(a.Left, 11) || !near(b.Left, 11) {
		t.Errorf("parallel children start at %v%% and %v%%, want both at 11%%", a.Left, b.Left)
	}
	if !near(a.Width, 28) || !near(b.Width, 78) {
		t.Errorf("widths = %v%%, %v%%, want 28%% and 78%%", a.Width, b.Width)
	}
}

func TestBuildTimelineListsRowsInTreeOrderWithLevels(t *testing.T) {
	run, spans := fanOut()
	tl := BuildTimeline(run, spans, ms(5000))
	var got []string
	for _, r := range tl.Rows {
		got = append(got, fmt.Sprintf("%s@%d", r.ID, r.Level))
	}
	want := "root@0 chat1@1 dA@1 fast@2 dB@1 slow@2 chat2@1"
	if strings.Join(got, " ") != want {
		t.Errorf("rows = %s\nwant   %s", strings.Join(got, " "), want)
	}
	if len(tl.Roots) != 1 || len(tl.Roots[0].Children) != 4 {
		t.Errorf("tree has %d roots, want one with 4 children", len(tl.Roots))
	}
}

func TestBuildTimelineMarksTheChainThatDeterminedTheEnd(t *testing.T) {
	run, spans := fanOut()
	tl := BuildTimeline(run, spans, ms(5000))
	want := map[string]bool{"root": true, "chat1": true, "dB": true, "slow": true, "chat2": true, "dA": false, "fast": false}
	for id, crit := range want {
		if got := rowsByID(tl)[id].Critical; got != crit {
			t.Errorf("%s critical = %v, want %v", id, got, crit)
		}
	}
}

func TestBuildTimelineCountsFailuresPerSubtree(t *testing.T) {
	run, spans := fanOut()
	spans[2].Status = trace.StatusDenied
	spans[6].Attributes[semconv.AttrRetryAttempt] = float64(1)
	tl := BuildTimeline(run, spans, ms(5000))
	rows := rowsByID(tl)
	if got := rows["root"].Sub; got != (Counts{NotOK: 2, Denials: 1, Retries: 1}) {
		t.Errorf("root subtree counts = %+v", got)
	}
	if got := rows["root"].SubTally.String(); got != "1 denied, 1 error" {
		t.Errorf("root subtree tally = %q", got)
	}
	if got := rows["dB"].Sub; got != (Counts{NotOK: 1}) {
		t.Errorf("dB subtree counts = %+v, want the slow child's error", got)
	}
	if rows["slow"].Sub.Any() {
		t.Errorf("a leaf counts its own status in its subtree: %+v", rows["slow"].Sub)
	}
	if tl.NotOK != 2 {
		t.Errorf("not ok = %d, want the error and the denial", tl.NotOK)
	}
}

func TestBuildTimelineDrawsQueueWaitBeforeTheBar(t *testing.T) {
	run, spans := fanOut()
	spans[3].Attributes[semconv.AttrQueuedMS] = float64(60) // dB waited 60ms for a slot
	tl := BuildTimeline(run, spans, ms(5000))
	r := rowsByID(tl)["dB"]
	if !near(r.QueueLeft, 10) || !near(r.QueueWidth, 6) || r.Queued != "60 ms" {
		t.Errorf("queue = %v%% + %v%% (%q), want 10%% + 6%% (60 ms)", r.QueueLeft, r.QueueWidth, r.Queued)
	}
	if !near(r.Left, 16) || !near(r.Width, 74) {
		t.Errorf("bar = %v%% + %v%%, want the work after the wait: 16%% + 74%%", r.Left, r.Width)
	}
	if q := rowsByID(tl)["dA"]; q.QueueWidth != 0 || q.Queued != "" {
		t.Errorf("a span that did not wait shows a queue: %+v", q)
	}
}

func TestBuildTimelineNeverDrawsAWaitLongerThanTheSpan(t *testing.T) {
	run, spans := fanOut()
	spans[2].Attributes[semconv.AttrQueuedMS] = int64(5000) // as recorded in process, before JSON
	r := rowsByID(BuildTimeline(run, spans, ms(5000)))["dA"]
	if !near(r.QueueWidth, 30) || r.Width != 0 {
		t.Errorf("queue %v%% bar %v%%, want the whole 30%% span as wait", r.QueueWidth, r.Width)
	}
}

func TestBuildTimelineGrowsARunningRunToNow(t *testing.T) {
	run, spans := fanOut()
	run.Status, run.EndedAt = trace.StatusRunning, time.Time{}
	spans[0].Status, spans[0].EndedAt = trace.StatusRunning, time.Time{}
	spans[6] = sp("chat2", "root", trace.KindChat, "demo", 900, -1, trace.StatusRunning)
	tl := BuildTimeline(run, spans, ms(2000))
	if tl.Axis.Total != 2*time.Second || !tl.Run.Live {
		t.Fatalf("axis = %v live=%v, want 2s and live", tl.Axis.Total, tl.Run.Live)
	}
	r := rowsByID(tl)["chat2"]
	if !near(r.Left, 45) || !near(r.Width, 55) {
		t.Errorf("running span at %v%% wide %v%%, want 45%% reaching the end", r.Left, r.Width)
	}
}

func TestBuildTimelineKeepsSpansWhoseParentIsMissingAsRoots(t *testing.T) {
	run, spans := fanOut()
	spans = append(spans, sp("lost", "nowhere", trace.KindChat, "demo", 10, 20, trace.StatusOK))
	tl := BuildTimeline(run, spans, ms(5000))
	if len(tl.Rows) != len(spans) || len(tl.Roots) != 2 {
		t.Errorf("rows=%d roots=%d, want every span shown and the orphan as a second root", len(tl.Rows), len(tl.Roots))
	}
}

func TestBuildTimelineSurvivesAParentCycle(t *testing.T) {
	run := trace.Run{ID: "r1", Status: trace.StatusOK, StartedAt: ms(0), EndedAt: ms(10)}
	spans := []trace.Span{
		sp("a", "b", trace.KindChat, "x", 0, 5, trace.StatusOK),
		sp("b", "a", trace.KindChat, "y", 1, 6, trace.StatusOK),
	}
	tl := BuildTimeline(run, spans, ms(10))
	if len(tl.Rows) != 2 {
		t.Errorf("rows = %d, want both spans of the cycle", len(tl.Rows))
	}
}

func TestBuildTimelineCollapsesDeepLevelsOfBigRuns(t *testing.T) {
	tests := []struct {
		name  string
		spans int
		level int // the level whose rows start collapsed
	}{
		{"a run a little over the budget keeps two levels open", VisibleRows + 10, 2},
		{"a huge run keeps only the root's children", 10_000, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, spans := bigRun(tt.spans)
			tl := BuildTimeline(run, spans, ms(0))
			if !tl.Big || tl.CollapseLevel != tt.level {
				t.Fatalf("big=%v level=%d, want big at level %d", tl.Big, tl.CollapseLevel, tt.level)
			}
			shown := 0
			for _, r := range tl.Rows {
				want := (r.Level >= tt.level && len(r.Children) > 0) || r.Group != nil
				if r.Collapsed != want {
					t.Fatalf("row %s at level %d collapsed=%v", r.ID, r.Level, r.Collapsed)
				}
				if r.Level <= tt.level {
					shown++
				}
			}
			if tt.level > 1 && shown > VisibleRows {
				t.Errorf("%d rows show at first, over the budget of %d", shown, VisibleRows)
			}
			if got := len(tl.visible(view{})); got > VisibleRows {
				t.Errorf("the default view shows %d rows, over the budget of %d", got, VisibleRows)
			}
		})
	}
	run, spans := fanOut()
	small := BuildTimeline(run, spans, ms(0))
	for _, r := range small.Rows {
		if r.Collapsed {
			t.Errorf("row %s of a small run starts collapsed", r.ID)
		}
	}
}

func TestTicksUseANaturalStep(t *testing.T) {
	tests := []struct {
		total time.Duration
		want  string
	}{
		{time.Second, "0 ms,200 ms,400 ms,600 ms,800 ms"},
		{3 * time.Second, "0 ms,1.00 s,2.00 s"},
		{3500 * time.Millisecond, "0 ms,1.00 s,2.00 s,3.00 s"},
		{90 * time.Second, "0 ms,30.0 s,1m 00s"},
	}
	for _, tt := range tests {
		var got []string
		for _, tk := range ticks(tt.total) {
			got = append(got, tk.Label)
		}
		if strings.Join(got, ",") != tt.want {
			t.Errorf("ticks(%v) = %s, want %s", tt.total, strings.Join(got, ","), tt.want)
		}
	}
}

// bigRun writes n spans shaped like a real large run: a coordinator that
// delegates to many workers, each making model and tool calls, some of
// which delegate again. Spans come back in start order.
func bigRun(n int) (trace.Run, []trace.Span) {
	run := trace.Run{ID: "big", Agent: "coord", Status: trace.StatusOK, StartedAt: ms(0), EndedAt: ms(n + 10)}
	spans := []trace.Span{sp("root", "", trace.KindInvokeAgent, "coord", 0, n+10, trace.StatusOK)}
	for i := 0; len(spans) < n; i++ {
		d := fmt.Sprintf("d%d", i)
		w := fmt.Sprintf("w%d", i)
		at := len(spans)
		worker := fmt.Sprintf("worker-%d", i%20)
		del := sp(d, "root", trace.KindExecuteTool, "delegate", at, at+40, trace.StatusOK)
		del.Agent, del.Attributes[semconv.AttrTargetAgent] = "coord", worker
		chat := sp(w+"c", w, trace.KindChat, "demo", at+2, at+10, trace.StatusOK)
		chat.Agent, chat.InputTokens, chat.OutputTokens = worker, 120, 40
		read := sp(w+"t", w, trace.KindExecuteTool, "filesystem.read_file", at+11, at+12, trace.StatusOK)
		read.Agent = worker
		spans = append(spans, del, sp(w, d, trace.KindInvokeAgent, worker, at+1, at+39, trace.StatusOK), chat, read)
		if i%7 == 3 {
			spans[len(spans)-1].Status = trace.StatusError
		}
	}
	spans = spans[:n]
	for i := range spans {
		spans[i].RunID = run.ID
		if spans[i].Kind == trace.KindInvokeAgent {
			run.Agents++
		}
	}
	slices.SortStableFunc(spans, func(a, b trace.Span) int { return a.StartedAt.Compare(b.StartedAt) })
	return run, spans
}

func TestShortTokensFitTheRollupColumn(t *testing.T) {
	tests := []struct {
		in, out int64
		want    string
	}{
		{0, 0, ""},
		{50, 8, "50 / 8"},
		{15_000, 5_000, "15.0k / 5.0k"},
		{2_500_000, 999, "2.5M / 999"},
	}
	for _, tt := range tests {
		if got := shortTokens(tt.in, tt.out); got != tt.want {
			t.Errorf("shortTokens(%d, %d) = %q, want %q", tt.in, tt.out, got, tt.want)
		}
	}
}

// deepChain is n spans, each the only child of the one before: a
// delegation chain n levels deep.
func deepChain(n int) (trace.Run, []trace.Span) {
	run := trace.Run{ID: "deep", Agent: "a0", Status: trace.StatusOK, StartedAt: ms(0), EndedAt: ms(2*n + 10)}
	spans := make([]trace.Span, n)
	parent := ""
	for i := range spans {
		id := fmt.Sprintf("s%d", i)
		kind := trace.KindInvokeAgent
		if i%2 == 1 {
			kind = trace.KindExecuteTool
		}
		spans[i] = sp(id, parent, kind, fmt.Sprintf("a%d", i/2), i, 2*n-i, trace.StatusOK)
		spans[i].RunID = run.ID
		parent = id
	}
	return run, spans
}
