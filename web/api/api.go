package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humaecho"
	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/web/core"
)

// Prefix is where the API is served; the OpenAPI document is at
// Prefix+"/openapi.json".
const Prefix = "/api/v1"

// Files writes agent files; *folder.Folder satisfies it (see agents.Files:
// a compare-and-swap on the hash the caller read).
type Files interface {
	Write(path string, data []byte, expectHash string) (string, error)
	Delete(path, expectHash string) error
}

// Store is what the API reads of the trace store; trace.Store satisfies it.
type Store interface {
	Runs(ctx context.Context, f trace.RunFilter) (trace.RunPage, error)
	Run(ctx context.Context, id string) (trace.Run, error)
	Spans(ctx context.Context, runID string) ([]trace.Span, error)
	SpansSince(ctx context.Context, runID string, cursor int64) ([]trace.Span, int64, error)
}

// Workflows is the live workflows folder; workflow.Catalog satisfies it.
type Workflows interface {
	Snapshot() *workflow.Set
}

// Config is what the API needs. Agents, Files, Live and Stop are required;
// without Runs the run endpoints answer 503, without Runner starting a
// run does, and so on for each optional part, as the web UI's pages say
// what this server cannot do.
type Config struct {
	Agents     core.Registry
	Files      Files
	Global     permissions.Rules
	Delegation permissions.Delegation
	// Remote are the agents that run elsewhere: delegation targets in
	// the permissions answer, as in the web UI's explorer.
	Remote    []registry.RemoteTarget
	Runs      Store
	Runner    core.Runner
	Live      *core.Live
	Workflows Workflows
	// WorkflowRunner starts workflow runs; nil answers 503.
	WorkflowRunner core.WorkflowRunner
	Approvals      approval.Store
	// Version is agentry's, the document's info.version.
	Version string
	Log     *slog.Logger
	Stop    <-chan struct{} // closed when the server shuts down
}

// API is the JSON API's handlers.
type API struct{ cfg Config }

// Mount registers the API's operations on e under Prefix, and the OpenAPI
// 3.1 document they make at Prefix/openapi.json (and .yaml). The routes
// are the operations: a route exists only as a documented operation.
func Mount(e *echo.Echo, cfg Config) huma.API {
	useAPIErrors()
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	hc := huma.DefaultConfig("agentry", cfg.Version)
	hc.Info.Description = "Everything agentry's web UI does, as JSON: agent files, validation, permissions, runs and their spans, approvals. " +
		"Send the server's token as `Authorization: Bearer TOKEN` (a server on a loopback address without a token needs none). " +
		"Every error is an Error object with a stable code."
	hc.Servers = []*huma.Server{{URL: Prefix}}
	hc.DocsPath, hc.SchemasPath = "", "" // no CDN-loaded docs page; schemas are in the document
	hc.CreateHooks = nil                 // no $schema links added to responses
	hc.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"bearer": {Type: "http", Scheme: "bearer", Description: "serve's access token (--token, AGENTRY_TOKEN)"},
	}
	hc.Security = []map[string][]string{{"bearer": {}}}
	api := humaecho.NewWithGroup(e, e.Group(Prefix), hc)
	a := &API{cfg: cfg}
	a.agents(api)
	a.runs(api)
	a.workflows(api)
	a.approvals(api)
	nullTimes(api)
	return api
}

// nullTimes documents what trace's JSON writes: a time not yet set (a
// running run's or span's ended_at) is null, not a string.
func nullTimes(api huma.API) {
	for name, s := range api.OpenAPI().Components.Schemas.Map() {
		switch name {
		case "Run", "Span", "Event":
			for _, f := range []string{"started_at", "ended_at", "time"} {
				if p := s.Properties[f]; p != nil {
					p.Nullable = true
				}
			}
		}
	}
}

var errorsOnce sync.Once

// useAPIErrors makes every error huma writes (a refused body, a handler's
// error) a core.APIError, the shape serve's error handler also writes for
// the API's paths (a missing token, a body over the limit).
func useAPIErrors() {
	errorsOnce.Do(func() {
		huma.NewError = func(status int, msg string, errs ...error) huma.StatusError {
			var details []core.ErrorDetail
			for _, err := range errs {
				var d huma.ErrorDetailer
				switch {
				case err == nil:
				case errors.As(err, &d):
					ed := d.ErrorDetail()
					details = append(details, core.ErrorDetail{Location: ed.Location, Message: ed.Message, Value: ed.Value})
				default:
					details = append(details, core.ErrorDetail{Message: err.Error()})
				}
			}
			return core.NewAPIError(status, msg, details...)
		}
	})
}

// fail is err as the API answers it (core.APIErrorOf): a handler that
// looked a thing up by name says what was missing with core.AsMissing.
func fail(err error) error { return core.APIErrorOf(err, "") }

// unavailable is the answer of an endpoint this server cannot serve.
func unavailable(what string) error {
	return core.NewAPIError(http.StatusServiceUnavailable, "this server cannot "+what)
}

// errorStatuses are the error responses every operation documents besides
// its own: a refused body (400, 422), a missing token (401), a Host or
// CSRF refusal (403), a body over the limit (413), a server error (500).
var errorStatuses = []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden,
	http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity, http.StatusInternalServerError}

// op is an operation with the error responses every one documents, plus
// those it adds.
func op(id, method, path, summary, tag string, errs ...int) huma.Operation {
	return huma.Operation{OperationID: id, Method: method, Path: path, Summary: summary, Tags: []string{tag},
		Errors: append(append([]int(nil), errorStatuses...), errs...)}
}
