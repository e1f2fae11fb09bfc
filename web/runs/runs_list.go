package runs

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/trace"

	"github.com/agentry/agentry/web/core"
)

// runsPageSize is how many runs one page of the list shows.
const runsPageSize = 25

// RunsView is the runs list: the filters as the person typed them, the
// choices the filter menus offer, one page of runs and links to its neighbours.
type RunsView struct {
	Agent, Status, Since, Until, Query string
	Sort                               string // "" newest first, trace.SortCost most expensive first
	Agents                             []string
	Statuses                           []string
	Rows                               []RunRow
	Page                               int
	PrevURL, NextURL                   string
	Problems                           []string // each filter that could not be read, and was ignored
}

// RunRow is one run in the list.
type RunRow struct {
	ID, Agent, Task string
	Status          trace.Status
	Started         string
	Duration        string
	Tokens          string
	Cost            string // "" when no call was priced
	Agents          int
	// NotOK tallies the run's spans that are not ok, so a run that ended ok
	// with denied calls says so ("ok · 2 denied").
	NotOK StatusTally
	// Workflow is true for a workflow's run (its root span is
	// invoke_workflow): Agent is then the workflow's name.
	Workflow bool
	// Conversation is the run's conversation ("" when none), and FollowUp
	// marks a run that continues one (conversations.go).
	Conversation string
	FollowUp     bool
}

// Summary is the tally after the run's status: "2 denied, 1 error", or "".
func (r RunRow) Summary() string { return r.NotOK.String() }

// runStatuses are the run statuses the filter offers.
var runStatuses = []trace.Status{
	trace.StatusRunning, trace.StatusOK, trace.StatusError, trace.StatusTimeout,
	trace.StatusCancelled, trace.StatusLimit, trace.StatusInterrupted,
}

// List is GET /runs: newest first, filtered by agent, status, time and text.
func (rp *Pages) List(c echo.Context) error {
	if err := rp.needStore(); err != nil {
		return err
	}
	q := c.QueryParams()
	v := RunsView{
		Agent: q.Get("agent"), Status: q.Get("status"), Since: q.Get("since"),
		Until: q.Get("until"), Query: strings.TrimSpace(q.Get("q")), Page: 1,
	}
	v.readChoices(q)
	f, problems := v.filter()
	v.Problems = append(v.Problems, problems...)
	page, err := rp.store.Runs(c.Request().Context(), f)
	if err != nil {
		return fmt.Errorf("list runs: %w", err)
	}
	now := rp.now()
	for _, r := range page.Runs {
		row := runRow(r, now)
		t, err := rp.tally(c.Request().Context(), r)
		if err != nil {
			return err
		}
		row.NotOK, row.Workflow = t.notOK, t.workflow
		v.Rows = append(v.Rows, row)
	}
	if v.Rows, err = rp.groupConversations(c.Request().Context(), v.Rows); err != nil {
		return fmt.Errorf("list runs: %w", err)
	}
	if v.Page > 1 {
		v.PrevURL = v.pageURL(q, v.Page-1)
	}
	if page.More {
		v.NextURL = v.pageURL(q, v.Page+1)
	}
	v.Agents, v.Statuses = rp.agentNames(v.Agent), statusNames()
	return core.Render(c, http.StatusOK, RunsPage(core.Page(c, "Runs", "/runs"), v))
}

// readChoices reads the status, sort and page of the query. A value the
// list does not know is reported and left out (the status and sort) or
// read as the first page, so the other filters still apply; a link made
// from the view (SortURL, pageURL) no longer carries it.
func (v *RunsView) readChoices(q url.Values) {
	if v.Status != "" && !slices.Contains(runStatuses, trace.Status(v.Status)) {
		v.Problems = append(v.Problems, fmt.Sprintf("The status “%s” is not one a run has, and was ignored: the statuses are %s.",
			core.Shorten(v.Status), strings.Join(statusNames(), ", ")))
		v.Status = ""
	}
	switch s := q.Get("sort"); s {
	case "":
	case trace.SortCost:
		v.Sort = trace.SortCost
	default:
		v.Problems = append(v.Problems, fmt.Sprintf("The sort “%s” is not understood, and was ignored: the list sorts newest first, or by cost (sort=%s).",
			core.Shorten(s), trace.SortCost))
	}
	if p := q.Get("page"); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 {
			v.Problems = append(v.Problems, fmt.Sprintf("The page “%s” is not a page number (1, 2, …): this is page 1.", core.Shorten(p)))
		} else {
			v.Page = n
		}
	}
}

// statusNames are the statuses the filter offers, as the query names them.
func statusNames() []string {
	out := make([]string, len(runStatuses))
	for i, s := range runStatuses {
		out[i] = string(s)
	}
	return out
}

// filter turns the form into a store query. A date that does not parse is
// left out and reported (a sentence each), so the rest of the filter still
// applies.
func (v RunsView) filter() (trace.RunFilter, []string) {
	f := trace.RunFilter{
		Agent: v.Agent, Status: trace.Status(v.Status), Text: v.Query,
		Limit: runsPageSize, Offset: (v.Page - 1) * runsPageSize, Sort: v.Sort,
	}
	var problems []string
	var err error
	if f.Since, err = parseDay(v.Since, false); err != nil {
		problems = append(problems, notADate("from", v.Since))
	}
	if f.Until, err = parseDay(v.Until, true); err != nil {
		problems = append(problems, notADate("until", v.Until))
	}
	return f, problems
}

func notADate(field, value string) string {
	return "The " + field + " date “" + core.Shorten(value) + "” is not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM), and was ignored."
}

// parseDay reads a date or a date and time (as <input type=date> and
// datetime-local send them) in UTC. A bare date used as an upper bound means
// the end of that day.
func parseDay(s string, endOfDay bool) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return time.Time{}, err
	}
	if endOfDay {
		t = t.AddDate(0, 0, 1)
	}
	return t, nil
}

// pageURL is the list with the same filters on another page.
func (v RunsView) pageURL(q url.Values, page int) string {
	q = maps.Clone(q) // Set replaces a key's slice, so a shallow copy is enough
	q.Set("page", strconv.Itoa(page))
	return "/runs?" + q.Encode()
}

// runRow shapes a run for the list; a running run's duration counts to now.
func runRow(r trace.Run, now time.Time) RunRow {
	end := r.EndedAt
	if end.IsZero() {
		end = now
	}
	return RunRow{
		ID: r.ID, Agent: r.Agent, Task: r.Task, Status: r.Status,
		Started: formatTime(r.StartedAt), Duration: formatDuration(end.Sub(r.StartedAt)),
		Tokens: formatTokens(r.InputTokens, r.OutputTokens), Agents: r.Agents, Cost: formatCost(r.CostUSD),
	}
}

// runTally is what the list learns from a run's spans: those not ok, and
// whether the root is a workflow's (the run record does not say).
type runTally struct {
	notOK    StatusTally
	workflow bool
}

// tally counts a run's spans that are not ok. It reads the run's spans,
// which costs about 2 ms for a run of 400 spans in trace/sqlite, so the
// tally of a run that has ended (and so no longer changes) is kept: a page
// of the list is read from the store once, then from memory.
func (rp *Pages) tally(ctx context.Context, r trace.Run) (runTally, error) {
	if t, ok := rp.tallies.Get(r.ID); ok {
		return t, nil
	}
	spans, err := rp.store.Spans(ctx, r.ID)
	if err != nil {
		return runTally{}, fmt.Errorf("count spans of run %s: %w", r.ID, err)
	}
	t := runTally{notOK: StatusTally{}}
	for _, sp := range spans {
		t.notOK.add(sp.Status)
		if sp.ParentID == "" && sp.Kind == trace.KindInvokeWorkflow {
			t.workflow = true
		}
	}
	if r.Status.IsFinal() {
		rp.tallies.Add(r.ID, t)
	}
	return t, nil
}

// maxTallies bounds the tallies kept; past it the least recently listed
// run's is forgotten, and costs one store read when it is listed again.
const maxTallies = 4096

// agentNames are the agents the registry knows, sorted, plus the one
// selected even if it is gone (old runs name agents that were deleted).
func (rp *Pages) agentNames(selected string) []string {
	var names []string
	for _, a := range rp.agents.Snapshot().Agents() {
		names = append(names, a.Name)
	}
	if selected != "" && !slices.Contains(names, selected) {
		names = append(names, selected)
	}
	slices.Sort(names)
	return names
}

// SortURL is the list with the same filters, sorted by cost (or back to
// newest first when it already is), from page 1.
func (v RunsView) SortURL() string {
	q := url.Values{}
	for k, val := range map[string]string{"agent": v.Agent, "status": v.Status, "since": v.Since, "until": v.Until, "q": v.Query} {
		if val != "" {
			q.Set(k, val)
		}
	}
	if v.Sort != trace.SortCost {
		q.Set("sort", trace.SortCost)
	}
	if len(q) == 0 {
		return "/runs"
	}
	return "/runs?" + q.Encode()
}
