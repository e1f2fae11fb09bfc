package temporal

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
)

// A stopped YAML workflow run cancels its invocations still going
// (cancelGoing). Two sources name them: what PlayWorkflow's attempts knew
// (going: started, and not known to have ended, carried from attempt to
// attempt by the activity's heartbeats, and to the workflow's play of a
// lost attempt by the TimeoutError's last heartbeat), and the server's
// visibility, which lists them by their IDs. The heartbeats miss an
// invocation started within the SDK's heartbeat throttle (4 s) before
// a worker was lost; the list misses none the visibility store has
// recorded, but may fail (the SDK client retries its transient errors for
// the call's minute, so what reaches here is a rejection or a minute
// without the store). Either alone leaves agents going that the other
// finds.

// flowBeat is what a PlayWorkflow attempt's heartbeats carry: the run's
// invocations started (by it or an earlier attempt) and not known ended.
type flowBeat struct {
	Going []string `json:",omitempty"`
}

// earlierGoing is what an earlier attempt of this PlayWorkflow activity
// last heartbeated as going (nothing on a first attempt).
func earlierGoing(ctx context.Context) []string {
	var b flowBeat
	if activity.HasHeartbeatDetails(ctx) {
		_ = activity.GetHeartbeatDetails(ctx, &b)
	}
	return b.Going
}

// going is a run's invocations started and not known ended, by ID; the
// engine's branches add and end them at once.
type going struct {
	mu  sync.Mutex
	ids map[string]bool
}

func newGoing(from ...[]string) *going {
	g := &going{ids: map[string]bool{}}
	for _, ids := range from {
		for _, id := range ids {
			g.ids[id] = true
		}
	}
	return g
}

func (g *going) add(id string) {
	g.mu.Lock()
	g.ids[id] = true
	g.mu.Unlock()
}

func (g *going) done(id string) {
	g.mu.Lock()
	delete(g.ids, id)
	g.mu.Unlock()
}

// list is the IDs in order, so two heartbeats of the same set are equal.
func (g *going) list() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Sorted(maps.Keys(g.ids))
}

// beat is the heartbeats' details (beatWith).
func (g *going) beat() any { return flowBeat{Going: g.list()} }

// ended says a workflow's result, as its Get returned err, is its end
// rather than the wait's (the context's, the server's).
func ended(err error) bool {
	return err == nil || errors.As(err, new(*temporal.WorkflowExecutionError))
}

// cancelGoing cancels the run's invocations still going and waits until
// they have closed their spans. The engine cancels those it reaches as
// it stops, but a stopped engine reaches no more: a run played only to
// end it (lostRun) stops at the first invocation going or not started,
// while a branch it had not replayed as far as the lost attempt went
// (one waiting out a retry's backoff) may hold another the lost attempt
// started; so may a branch of a run cancelled while an attempt replays
// an earlier one's. They are the ones the attempts knew (going) and the
// ones the server lists.
func (h *durableHost) cancelGoing(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	ids := h.going.list()
	listed, err := h.listGoing(cctx)
	if err != nil {
		activity.GetLogger(ctx).Warn("the run's agents still going could not be listed: only those its attempts knew are cancelled",
			"error", err, "known", len(ids))
	}
	var cancelled []string
	for _, id := range append(ids, listed...) {
		if !slices.Contains(cancelled, id) && h.c.CancelWorkflow(cctx, id, "") == nil {
			cancelled = append(cancelled, id)
		}
	}
	for _, id := range cancelled {
		_ = h.c.GetWorkflow(cctx, id, "").Get(cctx, nil) // cancelled: it closes its spans first
	}
}

// listGoing lists the run's invocations the server's visibility says are
// running, by their IDs (the run's, "-w", a hash).
func (h *durableHost) listGoing(ctx context.Context) ([]string, error) {
	var ids []string
	req := &workflowservice.ListWorkflowExecutionsRequest{
		Query: fmt.Sprintf("WorkflowId STARTS_WITH '%s-w' AND ExecutionStatus = 'Running'", h.runID)}
	for {
		res, err := h.c.ListWorkflow(ctx, req)
		if err != nil {
			return ids, err
		}
		for _, e := range res.GetExecutions() {
			ids = append(ids, e.GetExecution().GetWorkflowId())
		}
		if req.NextPageToken = res.GetNextPageToken(); len(req.NextPageToken) == 0 {
			return ids, nil
		}
	}
}
