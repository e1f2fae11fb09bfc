package runs

import (
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/web/core"
)

// NewRunView is the start-a-run form: the agents and models to pick from,
// what was picked, and what was wrong with it.
type NewRunView struct {
	Agents  []AgentChoice
	Models  []ModelChoice // the only models the form offers and accepts
	Agent   string
	Task    string
	Model   string
	Problem string
	CanRun  bool // false when the server has no runtime
}

// AgentChoice is one agent in the picker.
type AgentChoice struct{ Name, Description string }

// ModelChoice is one entry of the model picker (see core.Models).
type ModelChoice = core.ModelChoice

// NewForm is GET /runs/new; ?agent= preselects an agent (one there is not
// is said on the form, a 404). The model starts as each agent's own, so a
// run from the browser uses what the agent files say unless the person
// picks another model on purpose.
func (rp *Pages) NewForm(c echo.Context) error {
	v := rp.newRunView(c.QueryParam("agent"), "", core.OwnModel)
	status := http.StatusOK
	if v.Agent != "" {
		if missing := rp.missing(v.Agent); missing != nil {
			v.Problem, status = missing.Message(), http.StatusNotFound
		}
	}
	return core.Render(c, status, NewRunPage(core.Page(c, "Start a run", "/runs"), v))
}

// missing is the agent called name when there is none (nil when there is).
func (rp *Pages) missing(name string) *core.MissingError {
	if _, ok := rp.agents.Snapshot().Agent(name); ok {
		return nil
	}
	return &core.MissingError{What: "agent", Name: name}
}

// Start is POST /runs/new: it starts the run with the server's lifetime and
// sends the browser to its timeline. Only a model the form offers is
// accepted; anything else is refused before the runtime sees it (422; an
// agent there is not, 404), on the form as it was filled.
func (rp *Pages) Start(c echo.Context) error {
	req := RunRequest{
		Agent: strings.TrimSpace(c.FormValue("agent")),
		Task:  strings.TrimSpace(c.FormValue("task")),
		Model: strings.TrimSpace(c.FormValue("model")),
	}
	v, status := rp.newRunView(req.Agent, req.Task, req.Model), http.StatusUnprocessableEntity
	missing := rp.missing(req.Agent)
	switch {
	case rp.runner == nil || rp.store == nil:
		v.Problem = "This server cannot start runs: it was built without a runtime or a trace store."
	case req.Agent == "":
		v.Problem = "Pick an agent."
	case missing != nil:
		v.Problem, status = missing.Message(), http.StatusNotFound
	case !slices.ContainsFunc(v.Agents, func(a AgentChoice) bool { return a.Name == req.Agent }):
		v.Problem = "There is no enabled agent named “" + shorten(req.Agent) + "”."
	case req.Task == "":
		v.Problem = "Write the task for the agent."
	default:
		v.Problem = rp.models.CheckModel(v.Models, req.Model)
	}
	if v.Problem == "" {
		ex, err := rp.live.Start(rp.runner, req)
		if err == nil {
			return c.Redirect(http.StatusSeeOther, "/runs/"+ex.RunID())
		}
		rp.log.Info("start run", "agent", req.Agent, "model", req.Model, "err", err)
		v.Problem = "The run could not start: " + summarize(err)
	}
	return core.Render(c, status, NewRunPage(core.Page(c, "Start a run", "/runs"), v))
}

// summarize is what the page says about an error from the runtime (core.FirstLine).
func summarize(err error) string { return core.FirstLine(err) }

// shorten cuts a submitted value for a message (core.Shorten).
func shorten(s string) string { return core.Shorten(s) }

// newRunView fills the form with the enabled agents and the models it offers.
func (rp *Pages) newRunView(agent, task, model string) NewRunView {
	v := NewRunView{Agent: agent, Task: task, Model: model, CanRun: rp.runner != nil && rp.store != nil}
	for _, a := range rp.agents.Snapshot().Agents() {
		if a.Enabled {
			v.Agents = append(v.Agents, AgentChoice{Name: a.Name, Description: a.Description})
		}
	}
	slices.SortFunc(v.Agents, func(a, b AgentChoice) int { return strings.Compare(a.Name, b.Name) })
	v.Models = rp.models.ModelChoices()
	return v
}
