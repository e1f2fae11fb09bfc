package workflows

import (
	"net/http"
	"strings"

	"github.com/a-h/templ"
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
	Explain                                templ.Component  // the explain text as prose, without its title and graph sections
	Diagram                                *diagram.Drawing // the SVG step graph; nil when it cannot be drawn
	DiagramNote                            string           // why there is no drawing
	CanEdit                                bool
}

// explained is workflow.Explain's Markdown rendered as prose, without what
// the page shows above it: the title line, the description, the graph.
func explained(wf *workflow.Workflow, graph string) (templ.Component, error) {
	text := strings.Replace(workflow.Explain(wf), "\n## Graph\n\n"+graph, "", 1)
	if title, rest, ok := strings.Cut(text, "\n"); ok && strings.HasPrefix(title, "# ") {
		text = rest
	}
	if wf.Description != "" { // shown above the graph already
		text = strings.Replace(text, "\n"+wf.Description+"\n", "", 1)
	}
	return core.Markdown(text)
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
		if v.Explain, err = explained(wf, v.Graph); err != nil {
			return err
		}
		v.Diagram, v.DiagramNote = drawSteps(c.Request().Context(), wf, p.log)
	}
	title := v.Name
	if title == "" {
		title = v.File
	}
	return core.Render(c, http.StatusOK, ShowPage(core.Page(c, title, "/workflows"), v))
}
