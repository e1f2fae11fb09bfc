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
// reaches which of them. Fragments that htmx swaps in are served by the
// page's own handler or listed here next to it.
func routes(e *echo.Echo, p pages, d doors) {
	e.GET("/", func(c echo.Context) error { return c.Redirect(http.StatusSeeOther, "/agents") })
	assets := core.NewAssets(core.Static())
	e.GET("/static/*", assets.Serve)
	e.GET("/favicon.ico", assets.File("favicon.svg"))
	e.GET("/events", p.agents.Events)

	// Agents (web/agents): list, editor, file actions, Markdown preview.
	e.GET("/agents", p.agents.List)
	e.GET("/agents/new", p.agents.NewForm)
	e.POST("/agents/new", p.agents.Create)
	// Any file by its path, for those whose name cannot address them
	// (web/agents/address.go): /agents/file/PATH and PATH/ACTION.
	e.GET("/agents/file/*", p.agents.FileGet)
	e.POST("/agents/file/*", p.agents.FilePost)
	e.GET("/agents/:name", p.agents.Edit)
	e.POST("/agents/:name", p.agents.Save)
	e.POST("/agents/:name/raw", p.agents.SaveRaw)
	e.POST("/agents/:name/enabled", p.agents.Toggle)
	e.POST("/agents/:name/rename", p.agents.Rename)
	e.GET("/agents/:name/delete", p.agents.DeleteConfirm)
	e.POST("/agents/:name/delete", p.agents.Delete)
	e.POST("/preview", p.agents.Preview)

	// An agent's versions (web/history): the list, a diff of two, restore.
	versions(e, "/agents/:name", p.agentHistory)

	// Delegation graph and permissions explorer (web/agents).
	e.GET("/graph", p.agents.Graph)
	e.GET("/permissions", p.agents.Permissions)

	// Workflows (web/workflows): list with its change stream, a workflow's
	// page, the YAML editor, the start form; its History (web/history).
	e.GET("/workflows", p.workflows.List)
	e.GET("/workflows/events", p.workflows.Events)
	e.GET("/workflows/:name", p.workflows.Show)
	e.GET("/workflows/:name/edit", p.workflows.Edit)
	e.POST("/workflows/:name/edit", p.workflows.Save)
	e.GET("/workflows/:name/run", p.workflows.RunForm)
	e.POST("/workflows/:name/run", p.workflows.Run)
	versions(e, "/workflows/:name", p.workflowHistory)

	// Skills, commands and plugins (web/skills): the list, a skill's page
	// and SKILL.md editor, its files, its History (web/history), a
	// command's Run, the plugins page and its enable forms.
	e.GET("/skills", p.skills.List)
	e.GET("/skills/:id", p.skills.Show)
	e.POST("/skills/:id", p.skills.Save)
	e.GET("/skills/:id/files/*", p.skills.File)
	versions(e, "/skills/:id", p.skillHistory)
	e.POST("/commands/:id/run", p.skills.RunCommand)
	e.GET("/plugins", p.skills.PluginsPage)
	e.POST("/plugins/:name/enable", p.skills.Enable)

	// Runs (web/runs): list, start, timeline with its live stream and span
	// details, cancel, export.
	e.GET("/runs", p.runs.List)
	e.GET("/runs/new", p.runs.NewForm)
	e.POST("/runs/new", p.runs.Start)
	e.GET("/runs/:id", p.runs.Timeline)
	e.GET("/runs/:id/events", p.runs.Events)
	e.GET("/runs/:id/spans/:span", p.runs.SpanDetail)
	e.GET("/runs/:id/rows", p.runs.Rows)
	e.POST("/runs/:id/cancel", p.runs.Cancel)
	e.POST("/runs/:id/reply", p.runs.Reply) // a follow-up in the run's conversation
	e.GET("/runs/:id/export", p.runs.Export)
	e.POST("/runs/:id/continue", p.runs.Continue)
	// Two runs compared span by span (web/rundiff).
	e.GET("/runs/:id/diff", p.rundiff.With)
	e.GET("/runs/:id/diff/:other", p.rundiff.Diff)

	// Evals (web/evals): suites, a suite's evals, two compared, and the
	// form that adds a run as a case.
	e.GET("/evals", p.evals.List)
	e.GET("/evals/new-case", p.evals.NewCase)
	e.POST("/evals/new-case", p.evals.AddCase)
	e.GET("/evals/:suite", p.evals.Suite)
	e.GET("/evals/:suite/compare", p.evals.Compare)

	// Approvals (web/approvals): calls waiting for a person, and the
	// answers the list and the run page's section post.
	e.GET("/approvals", p.approvals.List)
	e.POST("/approvals/:id/approve", p.approvals.Approve)
	e.POST("/approvals/:id/deny", p.approvals.Deny)

	// Doors for programs (DESIGN §14), behind the same token and Host
	// checks. MCP's Streamable HTTP transport (web/mcp): POST for
	// messages, GET for the server's stream, DELETE to end a session.
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

// versions routes the History pages of the file at prefix (web/history):
// its versions, a diff of two, and restoring one.
func versions(e *echo.Echo, prefix string, h *history.Pages) {
	e.GET(prefix+"/history", h.History)
	e.GET(prefix+"/history/diff", h.Diff)
	e.POST(prefix+"/history/restore", h.Restore)
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
