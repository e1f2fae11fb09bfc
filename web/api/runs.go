package api

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/web/core"
)

type runsIn struct {
	Agent  string    `query:"agent" doc:"Only runs of this root agent"`
	Status string    `query:"status" enum:"running,ok,error,timeout,cancelled,denied,skipped,limit,interrupted" doc:"Only runs that ended so (or are running)"`
	Text   string    `query:"q" doc:"Only runs whose task or result contains this, case folded"`
	Since  time.Time `query:"since" doc:"Only runs started at or after this time (RFC 3339)"`
	Limit  int       `query:"limit" minimum:"0" maximum:"1000" doc:"Page size; default 50"`
	Cursor string    `query:"cursor" doc:"The next page: the previous page's next"`
}

type runsOut struct {
	Body struct {
		Runs []trace.Run `json:"runs" doc:"Newest first"`
		Next string      `json:"next,omitempty" doc:"The cursor of the next page; absent on the last"`
	}
}

type startIn struct {
	TraceParent string `header:"traceparent" doc:"A W3C traceparent: the run joins the caller's trace"`
	Body        struct {
		Agent   string `json:"agent" minLength:"1" doc:"The agent to run"`
		Task    string `json:"task" minLength:"1" doc:"What it is to do"`
		Context string `json:"context,omitempty" doc:"Background it needs, given after the task"`
		Model   string `json:"model,omitempty" doc:"A model for every agent of the run; default the agents' own"`
		Wait    bool   `json:"wait,omitempty" doc:"Answer when the run has ended, with its outcome, instead of at once"`
	}
}

// Started is a run just started (or, with wait, ended): the run as stored
// and, once it ended, its outcome in the delegate result's shape.
type Started struct {
	Run     trace.Run     `json:"run"`
	Outcome *core.Outcome `json:"outcome,omitempty" doc:"How it ended; present when the request waited"`
	// Workflow is a workflow run's end in `agentry workflow run --json`'s
	// shape, with the steps' outputs and the report.
	Workflow *core.WorkflowOutcome `json:"workflow,omitempty" doc:"How a workflow run ended (outputs, report); present when a workflow run's request waited"`
}

type startOut struct {
	Location string `header:"Location" doc:"The run's URL in this API"`
	Body     Started
}

type runIn struct {
	ID string `path:"id" doc:"The run's id"`
}

type runOut struct{ Body trace.Run }

type spansIn struct {
	ID     string `path:"id"`
	Limit  int    `query:"limit" minimum:"0" maximum:"1000" doc:"Page size; default 500"`
	Offset int    `query:"offset" minimum:"0" doc:"Spans to skip, in start order"`
	Since  int64  `query:"since" minimum:"0" doc:"Only spans written after this cursor (a previous answer's cursor), for following a live run; limit and offset then apply to those"`
}

type spansOut struct {
	Body struct {
		Spans  []trace.Span `json:"spans" doc:"In start order"`
		More   bool         `json:"more" doc:"More spans follow: ask again with offset + len(spans)"`
		Cursor int64        `json:"cursor" doc:"Pass as since to get the spans written after this answer"`
	}
}

// defaultSpans is a span page's size when the request says none.
const defaultSpans = 500

func (a *API) runs(api huma.API) {
	huma.Register(api, op("listRuns", http.MethodGet, "/runs", "List runs, newest first, a page at a time", "runs", http.StatusServiceUnavailable),
		func(ctx context.Context, in *runsIn) (*runsOut, error) {
			if a.cfg.Runs == nil {
				return nil, unavailable("list runs: it has no trace store")
			}
			page, err := a.cfg.Runs.Runs(ctx, trace.RunFilter{Agent: in.Agent, Status: trace.Status(in.Status), Text: in.Text,
				Since: in.Since, Limit: in.Limit, Cursor: in.Cursor})
			if err != nil {
				return nil, fail(err)
			}
			out := &runsOut{}
			out.Body.Runs, out.Body.Next = page.Runs, page.Next
			if out.Body.Runs == nil {
				out.Body.Runs = []trace.Run{}
			}
			return out, nil
		})
	start := op("startRun", http.MethodPost, "/runs", "Start a run of an agent", "runs",
		http.StatusNotFound, http.StatusConflict, http.StatusServiceUnavailable)
	start.DefaultStatus = http.StatusCreated
	huma.Register(api, start, a.startRun)
	huma.Register(api, op("getRun", http.MethodGet, "/runs/{id}", "Get a run", "runs", http.StatusNotFound, http.StatusServiceUnavailable),
		func(ctx context.Context, in *runIn) (*runOut, error) {
			if a.cfg.Runs == nil {
				return nil, unavailable("read runs: it has no trace store")
			}
			run, err := a.cfg.Runs.Run(ctx, in.ID)
			if err != nil {
				return nil, fail(core.AsMissing(err, "run", in.ID))
			}
			return &runOut{Body: run}, nil
		})
	huma.Register(api, op("listSpans", http.MethodGet, "/runs/{id}/spans", "List a run's spans, a page at a time", "runs",
		http.StatusNotFound, http.StatusServiceUnavailable), a.spans)
	cancel := op("cancelRun", http.MethodPost, "/runs/{id}/cancel", "Cancel a run: every branch stops and ends cancelled", "runs",
		http.StatusNotFound, http.StatusConflict, http.StatusBadGateway, http.StatusServiceUnavailable)
	cancel.DefaultStatus = http.StatusAccepted
	huma.Register(api, cancel, func(ctx context.Context, in *runIn) (*struct{}, error) {
		if a.cfg.Runs == nil {
			return nil, unavailable("cancel runs: it has no trace store")
		}
		dc, _ := a.cfg.Runner.(core.DurableCanceller)
		if err := a.cfg.Live.CancelRun(ctx, a.cfg.Runs, dc, in.ID); err != nil {
			return nil, fail(err)
		}
		return nil, nil
	})
}

// startRun starts a run as the web's start form does, through the same
// Runner, held by the same Live so the UI's Cancel reaches it.
func (a *API) startRun(ctx context.Context, in *startIn) (*startOut, error) {
	if a.cfg.Runner == nil || a.cfg.Runs == nil {
		return nil, unavailable("start runs: it has no runtime or no trace store")
	}
	b := in.Body
	ag, ok := a.cfg.Agents.Snapshot().Agent(b.Agent)
	if !ok {
		return nil, fail(core.NotFound("agent", b.Agent))
	}
	if !ag.Enabled {
		return nil, core.NewAPIError(http.StatusConflict, "agent "+b.Agent+" is disabled")
	}
	req := core.RunRequest{Agent: b.Agent, Task: core.TaskWithContext(b.Task, b.Context), Model: b.Model,
		Caller: &core.Caller{Protocol: "api"}, TraceParent: in.TraceParent}
	ex, err := a.cfg.Live.Start(a.cfg.Runner, req)
	if err != nil {
		var rejected *delegation.RejectedError
		if errors.As(err, &rejected) {
			return nil, core.NewAPIError(http.StatusUnprocessableEntity, "run "+rejected.RunID+" could not start: "+core.FirstLine(err))
		}
		return nil, fail(err)
	}
	return a.started(ctx, ex, b.Wait)
}

// started answers a run just started: the run as stored, and with wait,
// once it has ended, its outcome.
func (a *API) started(ctx context.Context, ex core.Execution, wait bool) (*startOut, error) {
	out := &startOut{Location: Prefix + "/runs/" + ex.RunID()}
	if wait {
		o, err := core.Await(ctx, a.cfg.Runs, ex)
		if err != nil {
			return nil, fail(err)
		}
		out.Body.Outcome = &o
	}
	run, err := a.cfg.Runs.Run(context.WithoutCancel(ctx), ex.RunID())
	if err != nil {
		return nil, fail(err)
	}
	out.Body.Run = run
	return out, nil
}

func (a *API) spans(ctx context.Context, in *spansIn) (*spansOut, error) {
	if a.cfg.Runs == nil {
		return nil, unavailable("read runs: it has no trace store")
	}
	if _, err := a.cfg.Runs.Run(ctx, in.ID); err != nil {
		return nil, fail(core.AsMissing(err, "run", in.ID))
	}
	spans, cursor, err := a.cfg.Runs.SpansSince(ctx, in.ID, in.Since)
	if err != nil {
		return nil, fail(err)
	}
	if in.Since == 0 {
		// All of them, in start order (SpansSince gives change order).
		if spans, err = a.cfg.Runs.Spans(ctx, in.ID); err != nil {
			return nil, fail(err)
		}
	}
	limit := in.Limit
	if limit == 0 {
		limit = defaultSpans
	}
	out := &spansOut{}
	out.Body.Cursor = cursor
	from := min(in.Offset, len(spans))
	to := min(from+limit, len(spans))
	out.Body.Spans, out.Body.More = spans[from:to], to < len(spans)
	if out.Body.Spans == nil {
		out.Body.Spans = []trace.Span{}
	}
	return out, nil
}
