package web

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// runsPages serves everything under /runs: the list, the start form, the
// timeline with its live stream and details, cancel and export. It holds
// the runs this server started so Cancel can reach them.
type runsPages struct {
	s            *Server
	store        RunStore
	runner       Runner
	live         *liveRuns
	defaultModel string
	now          func() time.Time
	poll         time.Duration
}

// runsPages builds the handlers of the runs pages from the server's config.
func (s *Server) runsPages() *runsPages {
	model := s.cfg.DefaultModel
	if model == "" {
		model = "demo"
	}
	return &runsPages{
		s: s, store: s.cfg.Runs, runner: s.cfg.Runtime, live: newLiveRuns(s.stop),
		defaultModel: model, now: s.cfg.Now, poll: pollInterval,
	}
}

// needStore answers 503 when the server has no trace store.
func (rp *runsPages) needStore() error {
	if rp.store == nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, errRunsOff.Error())
	}
	return nil
}
