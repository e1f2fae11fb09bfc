package api

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/web/core"
)

type approvalsIn struct {
	RunID  string `query:"run_id" doc:"Only this run's"`
	Status string `query:"status" enum:"pending,approved,denied" doc:"Only those in this state"`
	Limit  int    `query:"limit" minimum:"0" maximum:"1000"`
}

type approvalsOut struct {
	Body struct {
		Approvals []approval.Approval `json:"approvals" doc:"Pending ones first, oldest first; then answered ones, newest first"`
	}
}

type answerIn struct {
	ID   string `path:"id" doc:"The approval's id"`
	Body struct {
		Approve bool   `json:"approve" doc:"true approves the call, false denies it"`
		ForRun  bool   `json:"for_run,omitempty" doc:"Approve every later call of the same tool (or delegation) in this run"`
		Note    string `json:"note,omitempty" doc:"Why; a denial's reason reaches the agent's model"`
	}
}

type approvalOut struct{ Body approval.Approval }

func (a *API) approvals(api huma.API) {
	huma.Register(api, op("listApprovals", http.MethodGet, "/approvals", "List the calls that wait, or waited, for a person", "approvals",
		http.StatusServiceUnavailable),
		func(ctx context.Context, in *approvalsIn) (*approvalsOut, error) {
			if a.cfg.Approvals == nil {
				return nil, unavailable("list approvals: its trace store keeps none")
			}
			list, err := a.cfg.Approvals.Approvals(ctx, approval.Filter{RunID: in.RunID, Status: approval.Status(in.Status), Limit: in.Limit})
			if err != nil {
				return nil, fail(err)
			}
			out := &approvalsOut{}
			out.Body.Approvals = append([]approval.Approval{}, list...)
			return out, nil
		})
	huma.Register(api, op("answerApproval", http.MethodPost, "/approvals/{id}", "Approve or deny a call that waits", "approvals",
		http.StatusNotFound, http.StatusConflict, http.StatusServiceUnavailable),
		func(ctx context.Context, in *answerIn) (*approvalOut, error) {
			if a.cfg.Approvals == nil {
				return nil, unavailable("answer approvals: its trace store keeps none")
			}
			ans := approval.Answer{Approve: in.Body.Approve, ForRun: in.Body.ForRun && in.Body.Approve, By: "api", Note: in.Body.Note, At: time.Now()}
			ap, err := a.cfg.Approvals.DecideApproval(ctx, in.ID, ans)
			if errors.Is(err, approval.ErrDecided) {
				return nil, core.NewAPIError(http.StatusConflict, "it was already answered: "+string(ap.Status)+" by "+ap.DecidedBy)
			}
			if err != nil {
				return nil, fail(core.AsMissing(err, "approval", in.ID))
			}
			return &approvalOut{Body: ap}, nil
		})
}
