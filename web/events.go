package web

import (
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// heartbeat keeps idle event streams open through proxies and lets the server
// notice a client that went away.
const heartbeat = 25 * time.Second

// events streams Server-Sent Events: one "registry" event each time the agents
// folder changes, carrying the snapshot version. app.js turns it into the
// htmx trigger "registry-changed" that live parts of the pages listen to.
func (s *Server) events(c echo.Context) error {
	changes, cancel := s.cfg.Agents.Subscribe()
	defer cancel()
	w := openEventStream(c)
	tick := time.NewTicker(heartbeat)
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

// openEventStream starts a Server-Sent Events response: the browser's
// EventSource reconnects 2 s after the stream breaks.
func openEventStream(c echo.Context) *echo.Response {
	w := c.Response()
	w.Header().Set(echo.HeaderContentType, "text/event-stream")
	w.Header().Set(echo.HeaderCacheControl, "no-cache")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 2000\n\n")
	w.Flush()
	return w
}
