package runs_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
	"github.com/agentry/agentry/trace/semconv"

	"github.com/agentry/agentry/web"

	"github.com/agentry/agentry/web/core"
	"github.com/agentry/agentry/web/internal/dom"
	"github.com/agentry/agentry/web/runs"
)

// runsEnv is the test server with a memory trace store and a fake runner.
type runsEnv struct {
	*testEnv
	store  *memory.Store
	runner *runs.FakeRunner
}

func newRunsEnv(t *testing.T, mod ...func(*web.Config)) *runsEnv {
	store := memory.New()
	runner := newFakeRunner(store)
	base := func(c *web.Config) {
		c.Runs, c.Runtime = store, runner
		c.Now = func() time.Time { return ms(60_000) }
	}
	env := newTestEnv(t, team, append([]func(*web.Config){base}, mod...)...)
	return &runsEnv{testEnv: env, store: store, runner: runner}
}

// seed stores a finished run started at minute n after t0.
func (e *runsEnv) seed(id, agent, task string, st trace.Status, minute int) {
	e.T.Helper()
	start := t0.Add(time.Duration(minute) * time.Minute)
	r := trace.Run{ID: id, Agent: agent, Task: task, Status: st, StartedAt: start, EndedAt: start.Add(1500 * time.Millisecond),
		InputTokens: 10, OutputTokens: 5, Agents: 2}
	if err := e.store.Apply(context.Background(), []trace.Run{r}, nil); err != nil {
		e.T.Fatal(err)
	}
}

func (e *runsEnv) seedFanOut() {
	e.T.Helper()
	run, spans := fanOut()
	spans[4].Attributes = map[string]any{
		semconv.AttrTask: "Find the Q4 trend", semconv.AttrContextMode: "summary",
		semconv.AttrContextPassed: "The parent talked about sales.", semconv.AttrResult: "Q4 up 12%",
		semconv.AttrEffectiveTools: []string{"filesystem.read_file"},
		semconv.AttrPermissions: []map[string]any{
			{"subject": "web.fetch", "allowed": false, "level": "lead", "reason": "denied by lead (pattern web)"},
		},
		"custom": "kept",
	}
	if err := e.store.Apply(context.Background(), []trace.Run{run}, spans); err != nil {
		e.T.Fatal(err)
	}
}

func TestRunsListShowsNewestFirstAndFilters(t *testing.T) {
	e := newRunsEnv(t)
	e.seed("a", "lead", "plan the launch", trace.StatusOK, 1)
	e.seed("b", "analyst", "crunch numbers", trace.StatusError, 2)
	e.seed("c", "lead", "write the summary", trace.StatusOK, 3)
	tests := []struct {
		name, query string
		want        []string // agents of the rows, in order
	}{
		{"everything lists newest first", "", []string{"lead", "analyst", "lead"}},
		{"an agent filter keeps that agent's runs", "?agent=lead", []string{"lead", "lead"}},
		{"a status filter keeps runs that ended so", "?status=error", []string{"analyst"}},
		{"text search looks in the task", "?q=SUMMARY", []string{"lead"}},
		{"a time window keeps runs started in it", "?since=2026-11-21T12:02&until=2026-11-21T12:03", []string{"analyst"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, doc := e.Get("/runs" + tt.query)
			if status != http.StatusOK {
				t.Fatalf("status %d", status)
			}
			var got []string
			for _, a := range findAll(doc, "run-link") {
				got = append(got, textOf(a))
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("rows = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRunsListShowsTheDenialsOfARunThatEndedOK(t *testing.T) {
	e := newRunsEnv(t)
	run, spans := fanOut()
	spans[5].Status = trace.StatusOK // the slow branch ends ok
	spans[1].Status, spans[6].Status = trace.StatusDenied, trace.StatusDenied
	if err := e.store.Apply(context.Background(), []trace.Run{run}, spans); err != nil {
		t.Fatal(err)
	}
	e.seed("clean", "lead", "nothing went wrong", trace.StatusOK, 5)
	_, doc := e.Get("/runs")
	cells := findAll(doc, "run-status-cell")
	if len(cells) != 2 {
		t.Fatalf("%d rows, want 2", len(cells))
	}
	if got := textOf(cells[1]); got != "ok · 2 denied" {
		t.Errorf("the run with denials is listed as %q, want %q", got, "ok · 2 denied")
	}
	if got := textOf(cells[0]); got != "ok" {
		t.Errorf("the clean run is listed as %q", got)
	}
}

func TestRunsListRecountsARunThatIsStillGoing(t *testing.T) {
	e := newRunsEnv(t)
	run, spans := fanOut()
	run.Status, run.EndedAt = trace.StatusRunning, time.Time{}
	spans[5].Status = trace.StatusOK
	if err := e.store.Apply(context.Background(), []trace.Run{run}, spans[:6]); err != nil {
		t.Fatal(err)
	}
	_, doc := e.Get("/runs")
	if got := textOf(find(doc, "run-status-cell")); got != "running" {
		t.Fatalf("listed as %q", got)
	}
	spans[6].Status = trace.StatusDenied
	if err := e.store.Apply(context.Background(), nil, spans[6:]); err != nil {
		t.Fatal(err)
	}
	_, doc = e.Get("/runs")
	if got := textOf(find(doc, "run-status-cell")); got != "running · 1 denied" {
		t.Errorf("after a denial the running run is listed as %q", got)
	}
}

func TestRunsListPagesThroughManyRuns(t *testing.T) {
	e := newRunsEnv(t)
	for i := range runs.PageSize + 5 {
		e.seed(fmt.Sprintf("r%02d", i), "lead", "task", trace.StatusOK, i)
	}
	_, doc := e.Get("/runs")
	if n := len(findAll(doc, "run-row")); n != runs.PageSize {
		t.Fatalf("first page has %d rows, want %d", n, runs.PageSize)
	}
	next := find(doc, "next-page")
	if next == nil || find(doc, "prev-page") != nil {
		t.Fatal("the first page should link to older runs only")
	}
	_, doc = e.Get(attr(next, "href"))
	if n := len(findAll(doc, "run-row")); n != 5 {
		t.Errorf("second page has %d rows, want 5", n)
	}
	if find(doc, "next-page") != nil || find(doc, "prev-page") == nil {
		t.Error("the last page should link back only")
	}
}

func TestRunsListReportsADateItCannotRead(t *testing.T) {
	e := newRunsEnv(t)
	e.seed("a", "lead", "x", trace.StatusOK, 1)
	_, doc := e.Get("/runs?since=yesterday")
	if find(doc, "filter-problem") == nil || len(findAll(doc, "run-row")) != 1 {
		t.Error("a bad date should be reported and ignored, not hide every run")
	}
}

// A filter value the list does not understand is named, with the values it
// takes, and left out: the other filters still apply, and the links of the
// page (sort, paging) no longer carry it.
func TestRunsListNamesAFilterValueItDoesNotUnderstand(t *testing.T) {
	e := newRunsEnv(t)
	e.seed("a", "lead", "x", trace.StatusOK, 1)
	e.seed("b", "other", "y", trace.StatusError, 2)
	_, doc := e.Get("/runs?status=bogus&agent=lead&sort=cheapest&page=two")
	var problems []string
	for _, p := range findAll(doc, "filter-problem") {
		problems = append(problems, textOf(p))
	}
	want := []string{
		"The status “bogus” is not one a run has, and was ignored: the statuses are running, ok, error, timeout, cancelled, limit, interrupted.",
		"The sort “cheapest” is not understood, and was ignored: the list sorts newest first, or by cost (sort=" + trace.SortCost + ").",
		"The page “two” is not a page number (1, 2, …): this is page 1.",
	}
	if strings.Join(problems, "\n") != strings.Join(want, "\n") {
		t.Errorf("the list says\n%s\nwant\n%s", strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
	if rows := findAll(doc, "run-row"); len(rows) != 1 || !strings.Contains(textOf(rows[0]), "lead") {
		t.Errorf("%d rows, want lead's one run: the agent filter still applies", len(rows))
	}
	if sort := find(doc, "sort-cost"); sort == nil || strings.Contains(attr(sort, "href"), "bogus") {
		t.Error("the sort link is missing or carries the status that was ignored")
	}
	_, doc = e.Get("/runs?since=yesterday&until=2026-13-01")
	problems = nil
	for _, p := range findAll(doc, "filter-problem") {
		problems = append(problems, textOf(p))
	}
	if len(problems) != 2 || !strings.Contains(problems[0], "from date “yesterday”") || !strings.Contains(problems[1], "until date “2026-13-01”") {
		t.Errorf("bad dates are reported as %q", problems)
	}
}

func TestStartingARunLandsOnItsTimeline(t *testing.T) {
	e := newRunsEnv(t, func(c *web.Config) { c.DefaultModel = "demo" })
	_, doc := e.Get("/runs/new?agent=analyst")
	form := find(doc, "new-run-form")
	if form == nil {
		t.Fatal("no start form")
	}
	v := formValues(form)
	if v.Get("agent") != "analyst" || v.Get("model") != "" {
		t.Fatalf("form preselects agent %q model %q, want analyst and its own model", v.Get("agent"), v.Get("model"))
	}
	v.Set("task", "Summarise Q4")
	status, _, resp := e.Post("/runs/new", v, "")
	if status != http.StatusSeeOther {
		t.Fatalf("start answered %d, want a redirect", status)
	}
	loc := resp.Header.Get("Location")
	if started := e.runner.Requests(); len(started) != 1 || started[0] != (core.RunRequest{Agent: "analyst", Task: "Summarise Q4", Model: ""}) {
		t.Fatalf("runner got %+v", started)
	}
	_, doc = e.Get(loc)
	if got := textOf(find(doc, "run-status")); got != "running" {
		t.Errorf("timeline status = %q, want running", got)
	}
	if find(doc, "cancel-run") == nil {
		t.Error("a run started here shows no Cancel button")
	}
}

func TestStartingARunRefusesWhatItCannotRun(t *testing.T) {
	tests := []struct {
		name   string
		form   url.Values
		fail   error
		wants  string
		status int
	}{
		{"no agent", url.Values{"task": {"x"}}, nil, "Pick an agent", http.StatusUnprocessableEntity},
		{"an unknown agent", url.Values{"agent": {"ghost"}, "task": {"x"}}, nil, "There is no agent “ghost”.", http.StatusNotFound},
		{"a disabled agent", url.Values{"agent": {"writer"}, "task": {"x"}}, nil, "no enabled agent named", http.StatusUnprocessableEntity},
		{"no task", url.Values{"agent": {"lead"}, "task": {"  "}}, nil, "Write the task", http.StatusUnprocessableEntity},
		{"the runtime's own refusal", url.Values{"agent": {"lead"}, "task": {"x"}, "model": {""}},
			errors.New("unknown model provider \"nope\""), "unknown model provider", http.StatusUnprocessableEntity},
		{"a model that is not configured", url.Values{"agent": {"lead"}, "task": {"x"}, "model": {"nope:x"}}, nil, "not one of this server's models", http.StatusUnprocessableEntity},
		{"a script while scripts are off", url.Values{"agent": {"lead"}, "task": {"x"}, "model": {"script:/dev/zero"}}, nil, "Script models are off", http.StatusUnprocessableEntity},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newRunsEnv(t)
			e.runner.StartErr = tt.fail
			_, doc := e.Get("/runs/new")
			status, doc, _ := e.Post("/runs/new", tt.form, csrfOf(doc))
			if status != tt.status {
				t.Fatalf("status %d, want %d", status, tt.status)
			}
			if got := textOf(find(doc, "run-problem")); !strings.Contains(got, tt.wants) {
				t.Errorf("problem = %q, want it to mention %q", got, tt.wants)
			}
		})
	}
}

func TestStartingARunNeedsTheCSRFToken(t *testing.T) {
	e := newRunsEnv(t)
	e.Get("/runs/new")
	status, _, _ := e.Post("/runs/new", url.Values{"agent": {"lead"}, "task": {"x"}}, "")
	if status != http.StatusForbidden && status != http.StatusBadRequest {
		t.Errorf("a post without the token answered %d", status)
	}
	if len(e.runner.Requests()) != 0 {
		t.Error("a forged form started a run")
	}
}

func TestTimelinePageShowsEverySpanAndTheRollup(t *testing.T) {
	e := newRunsEnv(t)
	e.seedFanOut()
	status, doc := e.Get("/runs/r1")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	rows := findAll(doc, "span-row")
	if len(rows) != 7 {
		t.Fatalf("%d rows, want 7", len(rows))
	}
	if got := attr(rows[5], "data-status"); got != "error" {
		t.Errorf("the slow branch row has status %q, want error", got)
	}
	if !strings.Contains(attr(rows[5], "class"), "failed") || !strings.Contains(attr(rows[5], "class"), "crit") {
		t.Errorf("the failed branch on the critical path is not marked so: %q", attr(rows[5], "class"))
	}
	roll := findAll(doc, "rollup-row")
	if len(roll) != 5 { // coord, demo, delegate, fast, slow: one per span agent
		t.Errorf("rollup has %d agents", len(roll))
	}
	if got := textOf(find(doc, "axis-counts")); got != "7 spans · 1 not ok" {
		t.Errorf("axis counts = %q", got)
	}
	notOK := 0
	for _, c := range findAll(doc, "rollup-notok") {
		n, _ := strconv.Atoi(textOf(c))
		notOK += n
	}
	if notOK != 1 {
		t.Errorf("the rollup counts %d not ok, the axis 1", notOK)
	}
	// The legend explains the marks this finished run shows, and no others.
	legend := textOf(find(doc, "timeline-legend"))
	if !strings.Contains(legend, "✕") || !strings.Contains(legend, "critical path") {
		t.Errorf("the legend misses a mark the run shows: %q", legend)
	}
	if strings.Contains(legend, "↻") || strings.Contains(legend, "queued") {
		t.Errorf("the legend explains marks the run does not show: %q", legend)
	}
	if find(doc, "cancel-run") != nil {
		t.Error("a finished run offers Cancel")
	}
	if attr(find(doc, "timeline"), "data-live") != "false" {
		t.Error("a finished run's page would listen for changes")
	}
}

func TestTimelineOfAnUnknownRunIsNotFound(t *testing.T) {
	e := newRunsEnv(t)
	if status, _ := e.Get("/runs/nope"); status != http.StatusNotFound {
		t.Errorf("status %d, want 404", status)
	}
	if status, _ := e.Get("/runs/nope/export"); status != http.StatusNotFound {
		t.Errorf("export status %d, want 404", status)
	}
}

func TestSpanDetailsShowWhatTheChildWasGiven(t *testing.T) {
	e := newRunsEnv(t)
	e.seedFanOut()
	status, doc := e.Get("/runs/r1/spans/fast")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	checks := map[string]string{
		"detail-task":      "Find the Q4 trend",
		"detail-context":   "The parent talked about sales.",
		"detail-result":    "Q4 up 12%",
		"detail-tools":     "filesystem.read_file",
		"detail-decisions": "web.fetch denied by lead (pattern web)",
		"detail-title":     "Agent fast",
	}
	for id, want := range checks {
		if got := textOf(find(doc, id)); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	if !strings.Contains(textOf(doc), "custom") {
		t.Error("an attribute without a place of its own is hidden")
	}
	if status, _ := e.Get("/runs/r1/spans/nope"); status != http.StatusNotFound {
		t.Errorf("unknown span answered %d", status)
	}
}

func TestExportDownloadsTheTraceDocument(t *testing.T) {
	e := newRunsEnv(t)
	e.seedFanOut()
	resp, err := e.Client.Get(e.HTTP.URL + "/runs/r1/export")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if cd := resp.Header.Get("Content-Disposition"); !strings.Contains(cd, "attachment") || !strings.Contains(cd, "run-r1.json") {
		t.Errorf("Content-Disposition = %q", cd)
	}
	var doc trace.Document
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	want, _ := e.store.Export(context.Background(), "r1")
	if doc.Run.ID != "r1" || len(doc.Spans) != len(want.Spans) || doc.Spans[5].Status != trace.StatusError {
		t.Errorf("exported %s with %d spans, want r1 with %d", doc.Run.ID, len(doc.Spans), len(want.Spans))
	}
}

func TestCancelStopsARunStartedHere(t *testing.T) {
	e := newRunsEnv(t)
	_, doc := e.Get("/runs/new")
	csrf := csrfOf(doc)
	_, _, resp := e.Post("/runs/new", url.Values{"agent": {"lead"}, "task": {"long"}}, csrf)
	id := strings.TrimPrefix(resp.Header.Get("Location"), "/runs/")
	status, _, resp := e.Post("/runs/"+id+"/cancel", url.Values{}, csrf)
	if status != http.StatusSeeOther || resp.Header.Get("Location") != "/runs/"+id {
		t.Fatalf("cancel answered %d to %q", status, resp.Header.Get("Location"))
	}
	if !e.runner.Exec(id).Cancelled.Load() {
		t.Fatal("the execution was not cancelled")
	}
	run, _ := e.store.Run(context.Background(), id)
	if run.Status != trace.StatusCancelled {
		t.Errorf("run status %s", run.Status)
	}
	status, doc, _ = e.Post("/runs/"+id+"/cancel", url.Values{}, csrf)
	if status != http.StatusConflict || !strings.Contains(textOf(doc), "already ended") {
		t.Errorf("cancelling twice answered %d: %s", status, textOf(find(doc, "error-message")))
	}
}

// A second Cancel (another tab) that comes after the run ended here but
// before the store holds its end is told the run is stopping: it answered
// that another agentry process runs it.
func TestCancelOfARunEndingHereSaysItIsStopping(t *testing.T) {
	e := newRunsEnv(t)
	_, doc := e.Get("/runs/new")
	csrf := csrfOf(doc)
	_, _, resp := e.Post("/runs/new", url.Values{"agent": {"lead"}, "task": {"long"}}, csrf)
	id := strings.TrimPrefix(resp.Header.Get("Location"), "/runs/")
	e.runner.Exec(id).EndUnrecorded()
	status, page, _ := e.Post("/runs/"+id+"/cancel", url.Values{}, csrf)
	msg := textOf(find(page, "error-message"))
	if status != http.StatusConflict || !strings.Contains(msg, "already stopping") || strings.Contains(msg, "another agentry process") {
		t.Errorf("status %d %q, want 409 saying the run is already stopping", status, msg)
	}
}

func TestCancelRefusesARunStartedElsewhere(t *testing.T) {
	e := newRunsEnv(t)
	e.seed("other", "lead", "x", trace.StatusRunning, 1)
	_, doc := e.Get("/runs/other")
	if find(doc, "cancel-run") != nil {
		t.Error("a run this server cannot reach offers Cancel")
	}
	status, page, _ := e.Post("/runs/other/cancel", url.Values{}, csrfOf(doc))
	if msg := textOf(find(page, "error-message")); status != http.StatusConflict || !strings.Contains(msg, "another agentry process") {
		t.Errorf("status %d %q, want 409 saying another process runs it", status, msg)
	}
}

func TestCancelOfAnInterruptedRunSaysWhy(t *testing.T) {
	e := newRunsEnv(t)
	e.seed("gone", "lead", "x", trace.StatusInterrupted, 1)
	_, doc := e.Get("/runs/gone")
	status, page, _ := e.Post("/runs/gone/cancel", url.Values{}, csrfOf(doc))
	if msg := textOf(find(page, "error-message")); status != http.StatusConflict || !strings.Contains(msg, "interrupted") {
		t.Errorf("status %d %q, want 409 saying the run was interrupted", status, msg)
	}
	req, _ := http.NewRequest(http.MethodPost, e.HTTP.URL+"/runs/gone/cancel", strings.NewReader(url.Values{"_csrf": {csrfOf(doc)}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	resp, err := e.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	status, page = e.Parse(resp)
	if find(page, "error-message") == nil || !strings.Contains(textOf(page), "interrupted") {
		t.Errorf("htmx cancel answered %d without the reason: %q", status, textOf(page))
	}
}

func TestRunsPagesWithoutAStoreSayWhy(t *testing.T) {
	e := newTestEnv(t, team)
	if status, _ := e.Get("/runs"); status != http.StatusServiceUnavailable {
		t.Errorf("status %d, want 503", status)
	}
	_, doc := e.Get("/runs/new")
	if find(doc, "cannot-run") == nil {
		t.Error("the start form does not say this server cannot run agents")
	}
}

// sseEvent is one event read from a stream.
type sseEvent struct{ name, data string }

// readEvents reads events from an SSE body until it ends or stop says so.
func readEvents(t *testing.T, body io.Reader, stop func(sseEvent) bool) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.name != "" {
				out = append(out, cur)
				if stop(cur) {
					return out
				}
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if cur.data != "" {
				cur.data += "\n"
			}
			cur.data += strings.TrimPrefix(line, "data: ")
		}
	}
	return out
}

func TestEventsFollowARunUntilItEnds(t *testing.T) {
	e := newRunsEnv(t)
	_, doc := e.Get("/runs/new")
	_, _, resp := e.Post("/runs/new", url.Values{"agent": {"lead"}, "task": {"go"}}, csrfOf(doc))
	id := strings.TrimPrefix(resp.Header.Get("Location"), "/runs/")
	stream, err := e.Client.Get(e.HTTP.URL + "/runs/" + id + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	if ct := stream.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	first := readEvents(t, stream.Body, func(ev sseEvent) bool { return ev.name == "rollup" })
	if len(first) != 3 || first[0].name != "header" || !strings.Contains(first[0].data, `>running<`) || !strings.Contains(first[1].data, "1 span ·") {
		t.Fatalf("first state = %+v", first)
	}
	// A child span starts, then the run ends: both reach the stream.
	child := trace.Span{ID: "child1", RunID: id, ParentID: id[:16], Kind: trace.KindChat, Name: "chat demo",
		Agent: "lead", Status: trace.StatusRunning, StartedAt: ms(10)}
	if err := e.store.Apply(context.Background(), nil, []trace.Span{child}); err != nil {
		t.Fatal(err)
	}
	// The stream says the rows changed (the axis counts the new span, with
	// a new version); the page then fetches its window, which holds it.
	grown := readEvents(t, stream.Body, func(ev sseEvent) bool { return ev.name == "rows" })
	if last := grown[len(grown)-1]; !strings.Contains(last.data, "2 spans") || strings.Contains(last.data, `data-version="1"`) {
		t.Fatalf("the new span did not reach the stream: %q", last.data)
	}
	if _, frag := e.Get("/runs/" + id + "/rows"); !slices.Contains(rowIDs(frag), "child1") {
		t.Fatalf("the window after the change misses the new span: %v", rowIDs(frag))
	}
	e.runner.Exec(id).Finish(trace.StatusOK)
	rest := readEvents(t, stream.Body, func(ev sseEvent) bool { return ev.name == "end" })
	if end := rest[len(rest)-1]; end.name != "end" || end.data != "ok" {
		t.Fatalf("stream ended with %+v", end)
	}
	var header string
	for _, ev := range rest {
		if ev.name == "header" {
			header = ev.data
		}
	}
	if !strings.Contains(header, ">ok<") || strings.Contains(header, "cancel-run") {
		t.Errorf("final header does not show the end without Cancel: %s", header)
	}
}

func TestEventsOfAnEndedRunSendTheFinalStateAtOnce(t *testing.T) {
	e := newRunsEnv(t)
	e.seedFanOut()
	stream, err := e.Client.Get(e.HTTP.URL + "/runs/r1/events")
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	evs := readEvents(t, stream.Body, func(sseEvent) bool { return false })
	var names []string
	for _, ev := range evs {
		names = append(names, ev.name)
	}
	if strings.Join(names, ",") != "header,rows,rollup,extras,legend,end" {
		t.Errorf("events = %v", names)
	}
}

// hostileModels are start-form model values an attacker would try.
var hostileModels = []string{
	"script:/dev/zero", "script:/etc/passwd", "script:../x", "script:sub/../../x", "script:link.yaml",
	"script:big.yaml", "script:", "script:" + strings.Repeat("a", 100_000), "nope:model", "openai:" + strings.Repeat("x", 5000),
	"inherit", "script:ok.yaml\x00", "SCRIPT:/etc/passwd",
}

// scriptsFolder is a scripts folder with one good script beside a symlink
// out of it and a file over the size limit.
func scriptsFolder(t testing.TB) string {
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "secret.yaml")
	os.WriteFile(secret, []byte("lead: [{say: root:x:0:0}]\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "ok.yaml"), []byte("lead: [{say: done}]\n"), 0o644)
	os.Symlink(secret, filepath.Join(dir, "link.yaml"))
	os.WriteFile(filepath.Join(dir, "big.yaml"), make([]byte, 2<<20), 0o644)
	return dir
}

func TestTheStartFormOffersOnlyConfiguredModels(t *testing.T) {
	dir := scriptsFolder(t)
	e := newRunsEnv(t, func(c *web.Config) {
		c.DefaultModel, c.Models, c.ScriptDir = "demo", []string{"inherit", "demo", "fast"}, dir
	})
	_, doc := e.Get("/runs/new")
	var got []string
	for _, o := range findAll(find(doc, "run-model"), "") {
		if o.Data == "option" {
			got = append(got, attr(o, "value"))
		}
	}
	want := []string{"", "demo", "fast", "script:ok.yaml"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("model options %q, want %q", got, want)
	}
}

func TestTheStartFormRefusesHostileModels(t *testing.T) {
	for _, scripts := range []string{"", "a folder"} {
		t.Run("scripts "+map[bool]string{true: "off", false: "on"}[scripts == ""], func(t *testing.T) {
			dir := ""
			if scripts != "" {
				dir = scriptsFolder(t)
			}
			e := newRunsEnv(t, func(c *web.Config) { c.ScriptDir = dir })
			for _, m := range hostileModels {
				_, doc := e.Get("/runs/new")
				status, doc, _ := e.Post("/runs/new", url.Values{"agent": {"lead"}, "task": {"x"}, "model": {m}}, csrfOf(doc))
				problem := textOf(find(doc, "run-problem"))
				if status != http.StatusUnprocessableEntity || problem == "" {
					t.Errorf("model %.40q: status %d problem %q, want 422 with a reason", m, status, problem)
				}
				if len(problem) > 300 || strings.Contains(textOf(doc), "root:x") {
					t.Errorf("model %.40q: the page echoes too much: %.100q", m, problem)
				}
			}
			if n := len(e.runner.Requests()); n != 0 {
				t.Errorf("%d hostile runs reached the runtime", n)
			}
		})
	}
}

func TestTheStartFormRunsAScriptFromTheScriptsFolder(t *testing.T) {
	e := newRunsEnv(t, func(c *web.Config) { c.ScriptDir = scriptsFolder(t) })
	_, doc := e.Get("/runs/new")
	status, _, _ := e.Post("/runs/new", url.Values{"agent": {"lead"}, "task": {"x"}, "model": {"script:ok.yaml"}}, csrfOf(doc))
	if status != http.StatusSeeOther {
		t.Fatalf("status %d, want a redirect to the run", status)
	}
	if got := e.runner.Requests(); len(got) != 1 || got[0].Model != "script:ok.yaml" {
		t.Errorf("runner got %+v", got)
	}
}

func TestTheStartFormDefaultsToTheAgentsOwnModel(t *testing.T) {
	e := newRunsEnv(t, func(c *web.Config) { c.DefaultModel = "demo" })
	_, doc := e.Get("/runs/new?agent=lead")
	var selected []string
	for _, o := range findAll(find(doc, "run-model"), "") {
		if o.Data == "option" && dom.HasAttr(o, "selected") {
			selected = append(selected, attr(o, "value"))
		}
	}
	if strings.Join(selected, ",") != "" || len(selected) != 1 {
		t.Errorf("selected models %q, want only the agent's own (\"\")", selected)
	}
	for _, o := range findAll(find(doc, "run-agent"), "") {
		if o.Data == "option" && dom.HasAttr(o, "selected") && attr(o, "value") != "lead" {
			t.Errorf("?agent=lead selects %q", attr(o, "value"))
		}
	}
}
