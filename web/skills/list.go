package skills

import (
	"cmp"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/web/core"
)

// ListView is /skills, shaped like the screen.
type ListView struct {
	Skills   []SkillRow
	Commands []CommandRow
	// Problems are the problems of every skill and command file.
	Problems []ProblemView
	CanRun   bool
}

// SkillRow is one skill in the list.
type SkillRow struct {
	ID, Description, Plugin, Root, Href string
	Files                               int
}

// CommandRow is one slash command with its Run form.
type CommandRow struct {
	ID, Description, ArgumentHint, Plugin, File, RunHref string
	Tools                                                string // what it may use: its allowed-tools, or "every tool"
}

// ProblemView is one problem: "file:line: reason".
type ProblemView struct {
	Severity, Where, Message string
}

func problemViews(ps []registry.Problem) []ProblemView {
	out := make([]ProblemView, len(ps))
	for i, p := range ps {
		where := p.File
		if p.Line > 0 {
			where += ":" + strconv.Itoa(p.Line)
		}
		out[i] = ProblemView{Severity: p.Severity, Where: where, Message: p.Message}
	}
	return out
}

// List is GET /skills.
func (p *Pages) List(c echo.Context) error {
	lib := p.library()
	v := ListView{Problems: problemViews(lib.Problems()), CanRun: p.cfg.Start != nil}
	for _, s := range lib.Skills() {
		v.Skills = append(v.Skills, SkillRow{ID: s.ID, Description: s.Description, Plugin: s.Plugin, Root: s.Root,
			Href: skillHref(s.ID), Files: len(s.Files)})
	}
	for _, cm := range lib.Commands() {
		tools := "every tool the global rules allow"
		if cm.AllowedTools != nil {
			tools = cmp.Or(joinComma(cm.AllowedTools), "no tools")
		}
		v.Commands = append(v.Commands, CommandRow{ID: cm.ID, Description: cm.Description, ArgumentHint: cm.ArgumentHint,
			Plugin: cm.Plugin, File: cm.Root + "/" + cm.File, RunHref: "/commands/" + url.PathEscape(cm.ID) + "/run", Tools: tools})
	}
	return core.Render(c, http.StatusOK, ListPage(core.Page(c, "Skills", "/skills"), v))
}

func skillHref(id string) string { return "/skills/" + url.PathEscape(id) }

func joinComma(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

// RunCommand is POST /commands/ID/run: it starts the command with the
// form's arguments and sends the browser to the run's timeline.
func (p *Pages) RunCommand(c echo.Context) error {
	if p.cfg.Start == nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "this server cannot start runs")
	}
	id, _ := url.PathUnescape(c.Param("id"))
	cm, ok := p.library().Command(id)
	if !ok {
		return core.NotFound("command", id)
	}
	runID, err := p.cfg.Start(c.Request().Context(), cm, c.FormValue("args"), c.FormValue("model"))
	if err != nil {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "the command did not start: "+err.Error())
	}
	return c.Redirect(http.StatusSeeOther, "/runs/"+url.PathEscape(runID))
}
