package workflows

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/web/core"
	"github.com/agentry/agentry/web/diagram"
)

// ShowView is a workflow's page.
type ShowView struct {
	Stem, File, Name, Description, Version string
	Problems                               []ProblemView
	Stale                                  bool // the file is broken; the last good version is shown
	Served                                 bool // some version of the workflow can be shown and run
	Graph                                  string
	Explain                                string           // the explain text without its graph section
	Diagram                                *diagram.Drawing // the SVG step graph; nil when it cannot be drawn
	DiagramNote                            string           // why there is no drawing
	CanEdit                                bool
}

// Show is GET /workflows/:name.
func (p *Pages) Show(c echo.Context) error {
	s, f, err := p.requested(c)
	if err != nil {
		return err
	}
	v := ShowView{Stem: workflow.Stem(f.Path), File: f.Path, Name: f.Name, Problems: problemViews(f.Problems),
		Stale: f.Stale, CanEdit: p.cfg.Files != nil}
	if wf, ok := s.Workflow(f.Path); ok {
		v.Served, v.Description, v.Version = true, wf.Description, wf.Version
		v.Graph = workflow.Graph(wf)
		v.Explain = strings.Replace(workflow.Explain(wf), "\n## Graph\n\n"+v.Graph, "", 1)
		v.Diagram, v.DiagramNote = drawSteps(c.Request().Context(), wf, p.log)
	}
	title := v.Name
	if title == "" {
		title = v.File
	}
	return core.Render(c, http.StatusOK, ShowPage(core.Page(c, title, "/workflows"), v))
}
