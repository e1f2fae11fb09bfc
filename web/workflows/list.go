package workflows

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/web/core"
)

// ListView is the workflows list, shaped like the screen.
type ListView struct {
	Available bool // the server has a workflows folder
	Rows      []Row
	Version   string
}

// Row is one workflow file.
type Row struct {
	Stem, File, Name, Description string
	Status                        string // ok | warning | broken
	Stale                         bool   // broken, its last good version still served
	Steps, Inputs                 int
	Problems                      []ProblemView
	Href                          string
}

// ProblemView is one problem as the pages show it.
type ProblemView struct {
	Line     int    `json:"line"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	// Where is "file:line", the file alone when the line is unknown.
	Where string `json:"-"`
}

// String is "file:line: reason".
func (p ProblemView) String() string { return p.Where + ": " + p.Message }

func problemViews(ps workflow.Problems) []ProblemView {
	out := make([]ProblemView, len(ps))
	for i, p := range ps {
		where := p.File
		if p.Line > 0 {
			where += ":" + strconv.Itoa(p.Line)
		}
		out[i] = ProblemView{Line: p.Line, Severity: p.Severity, Message: p.Message, Where: where}
	}
	return out
}

// List is GET /workflows; with ?partial=table (or from htmx) only the table.
func (p *Pages) List(c echo.Context) error {
	v := p.listView()
	if c.QueryParam("partial") == "table" || core.IsHTMX(c) {
		return core.Render(c, http.StatusOK, ListTable(v))
	}
	return core.Render(c, http.StatusOK, ListPage(core.Page(c, "Workflows", "/workflows"), v))
}

func (p *Pages) listView() ListView {
	if p.cfg.Catalog == nil {
		return ListView{}
	}
	s := p.cfg.Catalog.Snapshot()
	v := ListView{Available: true, Version: strconv.FormatUint(s.Version(), 10)}
	for _, f := range s.Files() {
		stem := workflow.Stem(f.Path)
		r := Row{Stem: stem, File: f.Path, Name: f.Name, Stale: f.Stale, Problems: problemViews(f.Problems),
			Status: status(f.Problems), Href: href(stem)}
		if wf, ok := s.Workflow(f.Path); ok {
			r.Description, r.Steps, r.Inputs = wf.Description, len(wf.Steps), len(wf.Inputs)
		}
		v.Rows = append(v.Rows, r)
	}
	return v
}

// status sums up a file's problems as one word.
func status(ps workflow.Problems) string {
	switch {
	case ps.HasErrors():
		return "broken"
	case len(ps) > 0:
		return "warning"
	}
	return "ok"
}

func href(stem string) string { return "/workflows/" + url.PathEscape(stem) }

// Events streams Server-Sent Events: one "workflows" event when it opens
// and each time the catalog changes (a file written, a file's agents
// changed), carrying its version. app.js turns it into the htmx trigger
// "workflows-changed".
func (p *Pages) Events(c echo.Context) error {
	if p.cfg.Catalog == nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, errNoFolder)
	}
	version := func() uint64 { return p.cfg.Catalog.Snapshot().Version() }
	return core.StreamChanges(c, "workflows", p.cfg.Catalog.Subscribe, version, p.cfg.Stop)
}

const errNoFolder = "this server has no workflows folder (serve --workflows DIR, or workflows: in agentry.yaml)"

// requested finds the file a URL's :name addresses, and what it serves.
func (p *Pages) requested(c echo.Context) (*workflow.Set, workflow.File, error) {
	if p.cfg.Catalog == nil {
		return nil, workflow.File{}, echo.NewHTTPError(http.StatusServiceUnavailable, errNoFolder)
	}
	s := p.cfg.Catalog.Snapshot()
	stem := c.Param("name")
	f, ok := s.ByStem(stem)
	if !ok {
		return nil, workflow.File{}, core.NotFound("workflow", stem)
	}
	return s, f, nil
}
