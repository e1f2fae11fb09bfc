package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/web/a2a"
	"github.com/agentry/agentry/web/agents"
	"github.com/agentry/agentry/web/api"
	"github.com/agentry/agentry/web/approvals"
	"github.com/agentry/agentry/web/core"
	"github.com/agentry/agentry/web/evals"
	"github.com/agentry/agentry/web/history"
	"github.com/agentry/agentry/web/rundiff"
	"github.com/agentry/agentry/web/runs"
	"github.com/agentry/agentry/web/skills"
	"github.com/agentry/agentry/web/workflows"
)

// routes is the one route table of the UI. Each page family (a subpackage)
// owns its handlers, view models and templates; this table says which URL
// reaches which of them, one function per family below, each listing its
// URLs in full. Fragments that htmx swaps in are served by the page's own
// handler or listed next to it.
func routes(e *echo.Echo, p pages, d doors) {
	e.GET("/", func(c echo.Context) error { return c.Redirect(http.StatusSeeOther, "/agents") })
	assets := core.NewAssets(core.Static())
	e.GET("/static/*", assets.Serve)
	e.GET("/favicon.ico", assets.File("favicon.svg"))
	e.GET("/events", p.agents.Events)

	agentRoutes(e, p.agents, p.agentHistory)
	workflowRoutes(e, p.workflows, p.workflowHistory)
	skillRoutes(e, p.skills, p.skillHistory)
	runRoutes(e, p.runs, p.rundiff)
	evalRoutes(e, p.evals)
	approvalRoutes(e, p.approvals)
	doorRoutes(e, d)
}

// agentRoutes: the agents list, editor, file actions and Markdown preview,
// the delegation graph and the permissions explorer (web/agents), and an
// agent's versions (web/history).
func agentRoutes(e *echo.Echo, ag *agents.Pages, h *history.Pages) {
	e.GET("/agents", ag.List)
	e.GET("/agents/new", ag.NewForm)
	e.POST("/agents/new", ag.Create)
	// Any file by its path, for those whose name cannot address them
	// (web/agents/address.go): /agents/file/PATH and PATH/ACTION.
	e.GET("/agents/file/*", ag.FileGet)
	e.POST("/agents/file/*", ag.FilePost)
	e.GET("/agents/:name", ag.Edit)
	e.POST("/agents/:name", ag.Save)
	e.POST("/agents/:name/raw", ag.SaveRaw)
	e.POST("/agents/:name/enabled", ag.Toggle)
	e.POST("/agents/:name/rename", ag.Rename)
	e.GET("/agents/:name/delete", ag.DeleteConfirm)
	e.POST("/agents/:name/delete", ag.Delete)
	e.POST("/preview", ag.Preview)
	versions(e, "/agents/:name", h)

	e.GET("/graph", ag.Graph)
	e.GET("/permissions", ag.Permissions)
}

// workflowRoutes: the workflows list with its change stream, a workflow's
// page, the YAML editor, the start form (web/workflows); its History
// (web/history).
func workflowRoutes(e *echo.Echo, wp *workflows.Pages, h *history.Pages) {
	e.GET("/workflows", wp.List)
	e.GET("/workflows/events", wp.Events)
	e.GET("/workflows/:name", wp.Show)
	e.GET("/workflows/:name/edit", wp.Edit)
	e.POST("/workflows/:name/edit", wp.Save)
	e.GET("/workflows/:name/run", wp.RunForm)
	e.POST("/workflows/:name/run", wp.Run)
	versions(e, "/workflows/:name", h)
}

// skillRoutes: skills, commands and plugins (web/skills): the list, a
// skill's page and SKILL.md editor, its files, its History (web/history),
// a command's Run, the plugins page and its enable forms.
func skillRoutes(e *echo.Echo, sp *skills.Pages, h *history.Pages) {
	e.GET("/skills", sp.List)
	e.GET("/skills/:id", sp.Show)
	e.POST("/skills/:id", sp.Save)
	e.GET("/skills/:id/files/*", sp.File)
	versions(e, "/skills/:id", h)
	e.POST("/commands/:id/run", sp.RunCommand)
	e.GET("/plugins", sp.PluginsPage)
	e.POST("/plugins/:name/enable", sp.Enable)
}

// versions routes the History pages of the file at prefix (web/history):
// its versions, a diff of two, and restoring one.
func versions(e *echo.Echo, prefix string, h *history.Pages) {
	e.GET(prefix+"/history", h.History)
	e.GET(prefix+"/history/diff", h.Diff)
	e.POST(prefix+"/history/restore", h.Restore)
}

// runRoutes: the runs list, start, timeline with its live stream and span
// details, cancel, export (web/runs), and two runs compared span by span
// (web/rundiff).
func runRoutes(e *echo.Echo, rp *runs.Pages, dp *rundiff.Pages) {
	e.GET("/runs", rp.List)
	e.GET("/runs/new", rp.NewForm)
	e.POST("/runs/new", rp.Start)
	e.GET("/runs/:id", rp.Timeline)
	e.GET("/runs/:id/events", rp.Events)
	e.GET("/runs/:id/spans/:span", rp.SpanDetail)
	e.GET("/runs/:id/rows", rp.Rows)
	e.POST("/runs/:id/cancel", rp.Cancel)
	e.POST("/runs/:id/reply", rp.Reply) // a follow-up in the run's conversation
	e.GET("/runs/:id/export", rp.Export)
	e.POST("/runs/:id/continue", rp.Continue)
	e.GET("/runs/:id/diff", dp.With)
	e.GET("/runs/:id/diff/:other", dp.Diff)
}

// evalRoutes: suites, a suite's evals, two compared, and the form that
// adds a run as a case (web/evals).
func evalRoutes(e *echo.Echo, ep *evals.Pages) {
	e.GET("/evals", ep.List)
	e.GET("/evals/new-case", ep.NewCase)
	e.POST("/evals/new-case", ep.AddCase)
	e.GET("/evals/:suite", ep.Suite)
	e.GET("/evals/:suite/compare", ep.Compare)
}

// approvalRoutes: calls waiting for a person, and the answers the list and
// the run page's section post (web/approvals).
func approvalRoutes(e *echo.Echo, ap *approvals.Pages) {
	e.GET("/approvals", ap.List)
	e.POST("/approvals/:id/approve", ap.Approve)
	e.POST("/approvals/:id/deny", ap.Deny)
}

// doorRoutes: the doors for programs (DESIGN §14), behind the same token
// and Host checks as the pages.
func doorRoutes(e *echo.Echo, d doors) {
	// MCP's Streamable HTTP transport (web/mcp): POST for messages, GET
	// for the server's stream, DELETE to end a session.
	e.Any("/mcp", d.mcp)
	// A2A (web/a2a): each exposed agent's card and JSON-RPC endpoint, and
	// the well-known card of the first one.
	e.GET(a2a.CardPath, d.a2aCard)
	e.GET(a2a.Prefix+"/:agent"+a2a.CardPath, d.a2aCard)
	e.POST(a2a.Prefix+"/:agent", d.a2aCall)
	// The JSON API (web/api) under /api/v1: its routes are its documented
	// operations, registered with their OpenAPI description, which it
	// serves at /api/v1/openapi.json.
	api.Mount(e, d.api)
}

// pages are the UI's page families, one subpackage each, as the route
// table reaches them.
type pages struct {
	agents    *agents.Pages
	runs      *runs.Pages
	workflows *workflows.Pages
	approvals *approvals.Pages
	skills    *skills.Pages
	evals     *evals.Pages
	rundiff   *rundiff.Pages
	// The History pages (web/history) of agent, workflow and skill files.
	agentHistory, workflowHistory, skillHistory *history.Pages
}

// doors are what the routes of the programs' doors need.
type doors struct {
	mcp echo.HandlerFunc
	a2a *a2a.Server // nil: this server cannot run agents
	api api.Config
}

// a2aCard serves an agent card: the :agent's, else the default one.
func (d doors) a2aCard(c echo.Context) error {
	if d.a2a == nil {
		return errNoRuntime
	}
	if name := c.Param("agent"); name != "" {
		return d.a2a.Card(c.Response(), c.Request(), name)
	}
	return d.a2a.DefaultCard(c.Response(), c.Request())
}

// a2aCall answers an agent's JSON-RPC endpoint.
func (d doors) a2aCall(c echo.Context) error {
	if d.a2a == nil {
		return errNoRuntime
	}
	return d.a2a.Handle(c.Response(), c.Request(), c.Param("agent"))
}

// errNoRuntime is the answer of a door to runs on a server that has none.
var errNoRuntime = echo.NewHTTPError(http.StatusServiceUnavailable, "this server cannot run agents: it has no runtime or no trace store")
