package agents

import (
	"fmt"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/web/core"
)

// Events streams Server-Sent Events: one "registry" event each time the agents
// folder changes, carrying the snapshot version. app.js turns it into the
// htmx trigger "registry-changed" that live parts of the pages listen to.
func (s *Pages) Events(c echo.Context) error {
	changes, cancel := s.cfg.Agents.Subscribe()
	defer cancel()
	w := core.OpenEventStream(c)
	tick := time.NewTicker(core.Heartbeat)
	defer tick.Stop()
	ctx := c.Request().Context()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.stop:
			return nil
		case <-tick.C:
			fmt.Fprint(w, ": ping\n\n")
		case _, ok := <-changes:
			if !ok {
				return nil
			}
			fmt.Fprintf(w, "event: registry\ndata: %d\n\n", s.cfg.Agents.Snapshot().Version())
		}
		w.Flush()
	}
}
