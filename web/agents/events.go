package agents

import (
	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/web/core"
)

// Events streams Server-Sent Events: one "registry" event each time the agents
// folder changes, carrying the snapshot version. app.js turns it into the
// htmx trigger "registry-changed" that live parts of the pages listen to.
func (s *Pages) Events(c echo.Context) error {
	version := func() uint64 { return s.cfg.Agents.Snapshot().Version() }
	return core.StreamChanges(c, "registry", s.cfg.Agents.Subscribe, version, s.stop)
}
