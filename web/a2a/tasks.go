package a2a

import (
	"context"
	"iter"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
)

// byRunID is the SDK's request handler answering tasks/get, tasks/cancel
// and tasks/resubscribe for a run's ID as for its task's: a task's ID is
// the SDK's (made before the executor runs, so it cannot be the run's),
// and a client that knows the run (from the task's metadata, the web UI,
// the API) can still reach the task by it.
type byRunID struct {
	a2asrv.RequestHandler
	s *Server
}

// task is the ID of the task whose run is id, id itself when none is.
func (h byRunID) task(id a2a.TaskID) a2a.TaskID {
	if t, ok := h.s.tasks.Load(string(id)); ok {
		return t.(a2a.TaskID)
	}
	return id
}

func (h byRunID) OnGetTask(ctx context.Context, q *a2a.TaskQueryParams) (*a2a.Task, error) {
	if q != nil {
		q2 := *q
		q2.ID = h.task(q.ID)
		q = &q2
	}
	return h.RequestHandler.OnGetTask(ctx, q)
}

func (h byRunID) OnCancelTask(ctx context.Context, p *a2a.TaskIDParams) (*a2a.Task, error) {
	return h.RequestHandler.OnCancelTask(ctx, h.params(p))
}

func (h byRunID) OnResubscribeToTask(ctx context.Context, p *a2a.TaskIDParams) iter.Seq2[a2a.Event, error] {
	return h.RequestHandler.OnResubscribeToTask(ctx, h.params(p))
}

func (h byRunID) params(p *a2a.TaskIDParams) *a2a.TaskIDParams {
	if p == nil {
		return nil
	}
	p2 := *p
	p2.ID = h.task(p.ID)
	return &p2
}
