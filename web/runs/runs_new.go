package runs

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/web/core"
)

// NewRunView is the start-a-run form: the agents to pick from, what was
// typed, and what was wrong with it.
type NewRunView struct {
	Agents  []AgentChoice
	Models  []string // suggestions for the model field
	Agent   string
	Task    string
	Model   string
	Problem string
	CanRun  bool // false when the server has no runtime
}

// AgentChoice is one agent in the picker.
type AgentChoice struct{ Name, Description string }

// NewForm is GET /runs/new; ?agent= preselects an agent.
func (rp *Pages) NewForm(c echo.Context) error {
	v := rp.newRunView(c.QueryParam("agent"), "", rp.defaultModel)
	return core.Render(c, http.StatusOK, NewRunPage(core.Page(c, "Start a run", "/runs"), v))
}

// Start is POST /runs/new: it starts the run with the server's lifetime and
// sends the browser to its timeline.
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
		v.Problem = "There is no enabled agent named “" + req.Agent + "”."
	case req.Task == "":
		v.Problem = "Write the task for the agent."
	}
	if v.Problem == "" {
		id, err := rp.live.start(rp.runner, req)
		if err == nil {
			rp.awaitRecorded(c.Request().Context(), id)
			return c.Redirect(http.StatusSeeOther, "/runs/"+id)
		}
		rp.log.Info("start run", "agent", req.Agent, "model", req.Model, "err", err)
		v.Problem = "The run could not start: " + err.Error()
	}
	return core.Render(c, http.StatusUnprocessableEntity, NewRunPage(core.Page(c, "Start a run", "/runs"), v))
}

// recordWait bounds how long start waits for a new run to reach the store.
const recordWait = 2 * time.Second

// awaitRecorded waits until the store holds run id, so the timeline the
// browser is sent to finds it: the runtime records through a batching
// Recorder, a few milliseconds behind. After recordWait it gives up and the
// timeline page says what it finds.
func (rp *Pages) awaitRecorded(ctx context.Context, id string) {
	deadline := time.Now().Add(recordWait)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if _, err := rp.store.Run(ctx, id); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// newRunView fills the form with the enabled agents and model suggestions.
func (rp *Pages) newRunView(agent, task, model string) NewRunView {
	v := NewRunView{Agent: agent, Task: task, Model: model, CanRun: rp.runner != nil && rp.store != nil}
	for _, a := range rp.agents.Snapshot().Agents() {
		if a.Enabled {
			v.Agents = append(v.Agents, AgentChoice{Name: a.Name, Description: a.Description})
		}
	}
	slices.SortFunc(v.Agents, func(a, b AgentChoice) int { return strings.Compare(a.Name, b.Name) })
	v.Models = append([]string{rp.defaultModel}, rp.models...)
	slices.Sort(v.Models)
	v.Models = slices.Compact(v.Models)
	return v
}
