package runs

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/delegation/model/script"
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

// ModelChoice is one entry of the model picker; Value "" means each agent's
// own model.
type ModelChoice struct{ Value, Label string }

// ownModel is the picker's value for "each agent uses the model its file names".
const ownModel = ""

// maxShown bounds how much of a submitted value a message repeats.
const maxShown = 60

// NewForm is GET /runs/new; ?agent= preselects an agent. The model starts
// as each agent's own, so a run from the browser uses what the agent files
// say unless the person picks another model on purpose.
func (rp *Pages) NewForm(c echo.Context) error {
	v := rp.newRunView(c.QueryParam("agent"), "", ownModel)
	return core.Render(c, http.StatusOK, NewRunPage(core.Page(c, "Start a run", "/runs"), v))
}

// Start is POST /runs/new: it starts the run with the server's lifetime and
// sends the browser to its timeline. Only a model the form offers is
// accepted; anything else is refused before the runtime sees it.
func (rp *Pages) Start(c echo.Context) error {
	req := RunRequest{
		Agent: strings.TrimSpace(c.FormValue("agent")),
		Task:  strings.TrimSpace(c.FormValue("task")),
		Model: strings.TrimSpace(c.FormValue("model")),
	}
	v := rp.newRunView(req.Agent, req.Task, req.Model)
	switch {
	case rp.runner == nil || rp.store == nil:
		v.Problem = "This server cannot start runs: it was built without a runtime or a trace store."
	case req.Agent == "":
		v.Problem = "Pick an agent."
	case !slices.ContainsFunc(v.Agents, func(a AgentChoice) bool { return a.Name == req.Agent }):
		v.Problem = "There is no enabled agent named “" + shorten(req.Agent) + "”."
	case req.Task == "":
		v.Problem = "Write the task for the agent."
	default:
		v.Problem = rp.checkModel(v.Models, req.Model)
	}
	if v.Problem == "" {
		id, err := rp.live.start(rp.runner, req)
		if err == nil {
			return c.Redirect(http.StatusSeeOther, "/runs/"+id)
		}
		rp.log.Info("start run", "agent", req.Agent, "model", req.Model, "err", err)
		v.Problem = "The run could not start: " + summarize(err)
	}
	return core.Render(c, http.StatusUnprocessableEntity, NewRunPage(core.Page(c, "Start a run", "/runs"), v))
}

// checkModel says what is wrong with a submitted model, "" when the form
// offers it. A script: name is always checked against the scripts folder
// (confined, size-limited), so a script added after the page loaded still
// runs and one that changed since is refused.
func (rp *Pages) checkModel(offered []ModelChoice, m string) string {
	name, isScript := strings.CutPrefix(m, "script:")
	if !isScript {
		if slices.ContainsFunc(offered, func(c ModelChoice) bool { return c.Value == m }) {
			return ""
		}
		return "“" + shorten(m) + "” is not one of this server's models; pick one from the list."
	}
	if _, err := script.ReadIn(rp.scriptDir, name); err != nil {
		if errors.Is(err, script.ErrScriptsOff) {
			return "Script models are off in this server (set serve.script_dir in agentry.yaml to allow them)."
		}
		return "There is no script named “" + shorten(name) + "” in the scripts folder (or it is too big, or leads out of it)."
	}
	return ""
}

// summarize is what the page says about an error from the runtime: its
// first line, shortened. The full error goes to the log.
func summarize(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	if utf8.RuneCountInString(msg) > 300 {
		msg = string([]rune(msg)[:300]) + "…"
	}
	return msg
}

// shorten cuts a submitted value for a message, so a huge value is not
// echoed back whole.
func shorten(s string) string {
	if utf8.RuneCountInString(s) <= maxShown {
		return s
	}
	return string([]rune(s)[:maxShown]) + "…"
}

// newRunView fills the form with the enabled agents and the models it offers.
func (rp *Pages) newRunView(agent, task, model string) NewRunView {
	v := NewRunView{Agent: agent, Task: task, Model: model, CanRun: rp.runner != nil && rp.store != nil}
	for _, a := range rp.agents.Snapshot().Agents() {
		if a.Enabled {
			v.Agents = append(v.Agents, AgentChoice{Name: a.Name, Description: a.Description})
		}
	}
	slices.SortFunc(v.Agents, func(a, b AgentChoice) int { return strings.Compare(a.Name, b.Name) })
	v.Models = rp.modelChoices()
	return v
}

// modelChoices are the models the form offers: each agent's own, the
// configured default, the other configured models and aliases, and the
// scripts of serve.script_dir when it is set.
func (rp *Pages) modelChoices() []ModelChoice {
	out := []ModelChoice{{ownModel, "each agent's own model"}}
	names := append([]string{rp.defaultModel}, rp.models...)
	slices.Sort(names)
	for _, m := range slices.Compact(names) {
		if m == "" || m == "inherit" {
			continue
		}
		label := m
		if m == rp.defaultModel {
			label += " (default)"
		}
		out = append(out, ModelChoice{m, label})
	}
	for _, s := range script.List(rp.scriptDir) {
		out = append(out, ModelChoice{"script:" + s, "script:" + s})
	}
	return out
}
