package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// routes is the one route table of the UI. Each handler lives in a file named
// after its page; fragments that htmx swaps in are served by the page's own
// handler (see partial) or listed here next to it.
func (s *Server) routes(e *echo.Echo) {
	e.GET("/", func(c echo.Context) error { return c.Redirect(http.StatusSeeOther, "/agents") })
	e.StaticFS("/static", echo.MustSubFS(staticFS, "static"))
	e.GET("/events", s.events)

	// Agents (agents.go, editor.go, agent_actions.go).
	e.GET("/agents", s.agentsList)
	e.GET("/agents/new", s.agentNew)
	e.POST("/agents/new", s.agentCreate)
	e.GET("/agents/:name", s.agentEdit)
	e.POST("/agents/:name", s.agentSave)
	e.POST("/agents/:name/raw", s.agentSaveRaw)
	e.POST("/agents/:name/enabled", s.agentToggle)
	e.POST("/agents/:name/rename", s.agentRename)
	e.GET("/agents/:name/delete", s.agentDeleteConfirm)
	e.POST("/agents/:name/delete", s.agentDelete)
	e.POST("/preview", s.preview)

	// Delegation graph (graph.go) and permissions explorer (explorer.go).
	e.GET("/graph", s.graph)
	e.GET("/permissions", s.permissions)

	// Runs (runs_*.go): list, start, timeline with its live stream and span
	// details, cancel, export.
	runs := s.runsPages()
	e.GET("/runs", runs.list)
	e.GET("/runs/new", runs.newForm)
	e.POST("/runs/new", runs.start)
	e.GET("/runs/:id", runs.timeline)
	e.GET("/runs/:id/events", runs.events)
	e.GET("/runs/:id/spans/:span", runs.spanDetail)
	e.GET("/runs/:id/spans/:span/children", runs.spanChildren)
	e.POST("/runs/:id/cancel", runs.cancel)
	e.GET("/runs/:id/export", runs.export)
}
