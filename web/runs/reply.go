package runs

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/web/core"
)

// Reply is POST /runs/:id/reply: the message starts a follow-up run of the
// run's agent in the run's conversation (RunRequest.Continue), and the
// browser goes to its timeline. An empty message goes back to the run.
func (rp *Pages) Reply(c echo.Context) error {
	id := c.Param("id")
	if rp.runner == nil || rp.store == nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "This server cannot start runs: it was built without a runtime or a trace store.")
	}
	run, err := rp.store.Run(c.Request().Context(), id)
	if err != nil {
		return core.AsMissing(err, "run", id)
	}
	if run.Status == trace.StatusRunning {
		return echo.NewHTTPError(http.StatusConflict, "The run is still going: reply when it has ended.")
	}
	msg := strings.TrimSpace(c.FormValue("message"))
	if msg == "" {
		return c.Redirect(http.StatusSeeOther, "/runs/"+id)
	}
	next, err := rp.live.Start(rp.runner, RunRequest{Agent: run.Agent, Task: msg, Continue: id})
	if err != nil {
		rp.log.Info("reply", "run", id, "err", err)
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "The follow-up could not start: "+summarize(err))
	}
	return c.Redirect(http.StatusSeeOther, "/runs/"+next.RunID())
}
