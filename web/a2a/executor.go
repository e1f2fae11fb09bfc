package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/progress"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/web/core"
)

// metaRunID is the metadata key of the run a task is, on its status
// updates and its outcome artifact.
const metaRunID = "run_id"

// metaTraceParent is the message metadata key of a W3C traceparent.
const metaTraceParent = "traceparent"

// executor runs one exposed agent or workflow for the SDK: each new task
// is one run. start starts the run a message asks for and returns it with
// how to tell its end in the task's terms.
type executor struct {
	s     *Server
	start func(rc *a2asrv.RequestContext) (core.Execution, func(core.Outcome) ending, error)
}

// ending is how a run ended, as a task tells it: its answer and outcome
// (the artifact's text and data parts), and the run's status with why.
type ending struct {
	text   string
	data   any
	status trace.Status // ok: completed; cancelled: canceled; the rest: failed
	why    string
}

// agentEnding is an agent run's ending: the answer, and core.Outcome.
func agentEnding(out core.Outcome) ending {
	return ending{text: out.Result, data: out, status: out.Status, why: core.Ended(out.RunID, string(out.Status), out.Error)}
}

// Execute starts the run the message asks for and turns what it does
// into the task's events until it ends.
func (x *executor) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	if rc.StoredTask != nil {
		return fmt.Errorf("%w: a task of agentry's is one run; send a new message (without taskId) for another", a2a.ErrUnsupportedOperation)
	}
	if err := q.Write(ctx, a2a.NewStatusUpdateEvent(rc, a2a.TaskStateSubmitted, nil)); err != nil {
		return err
	}
	ex, end, err := x.start(rc)
	if err != nil {
		meta := map[string]any{}
		var rejected *delegation.RejectedError
		if errors.As(err, &rejected) {
			meta[metaRunID] = rejected.RunID
		}
		return x.final(ctx, rc, q, a2a.TaskStateFailed, core.FirstLine(err), meta)
	}
	x.s.started(rc.TaskID, ex)
	defer x.s.runs.Delete(rc.TaskID)
	meta := map[string]any{metaRunID: ex.RunID()}
	if err := q.Write(ctx, withMeta(a2a.NewStatusUpdateEvent(rc, a2a.TaskStateWorking, nil), meta)); err != nil {
		ex.Cancel()
		return err
	}
	// tasks/cancel, or the server stopping, ends ctx: Follow cancels the run.
	out, err := core.Follow(ctx, x.s.cfg.Store, ex, x.watcher(ctx, rc, q, meta))
	if err != nil {
		return x.final(ctx, rc, q, a2a.TaskStateFailed, err.Error(), meta)
	}
	return x.finish(ctx, rc, q, end(out), meta)
}

// input is the message's task (its first text part) and context (the
// other text and data parts), and the traceparent in its metadata.
func input(rc *a2asrv.RequestContext) (task, context, traceparent string, err error) {
	task, context = messageText(rc.Message)
	if task == "" {
		return "", "", "", errors.New("send the task as a text part")
	}
	traceparent, _ = rc.Message.Metadata[metaTraceParent].(string)
	return task, context, traceparent, nil
}

// watcher makes the task input-required while a call of the run waits for
// a person, and working again once it is answered.
func (x *executor) watcher(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue, meta map[string]any) core.Watcher {
	state := func(st a2a.TaskState, msg *a2a.Message) {
		if err := q.Write(ctx, withMeta(a2a.NewStatusUpdateEvent(rc, st, msg), meta)); err != nil && ctx.Err() == nil {
			x.s.cfg.Log.Debug("a2a: status update not written", "err", err)
		}
	}
	w := core.Watcher{Store: x.s.cfg.Store}
	if x.s.cfg.Approvals != nil {
		w.Approvals = x.s.cfg.Approvals
		w.Asked = func(a approval.Approval) {
			text := fmt.Sprintf("%s wants to call %s %s: it waits for a person's approval (approval %s: the web UI, `agentry approvals`, or POST /api/v1/approvals/%s)",
				a.Agent, a.Tool, progress.OneLine(a.Arguments, 300), a.ID, a.ID)
			state(a2a.TaskStateInputRequired, a2a.NewMessageForTask(a2a.MessageRoleAgent, rc, a2a.TextPart{Text: text}))
		}
		w.Answered = func(approval.Approval) { state(a2a.TaskStateWorking, nil) }
	}
	return w
}

// finish writes the run's ending: its answer and outcome as an artifact,
// then the final state.
func (x *executor) finish(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue, e ending, meta map[string]any) error {
	ctx = context.WithoutCancel(ctx)
	var data map[string]any
	b, _ := json.Marshal(e.data)
	_ = json.Unmarshal(b, &data)
	art := a2a.NewArtifactEvent(rc, a2a.TextPart{Text: e.text}, a2a.DataPart{Data: data})
	art.Artifact.Name, art.Artifact.Metadata = "outcome", meta
	if err := q.Write(ctx, art); err != nil {
		return err
	}
	switch e.status {
	case trace.StatusOK:
		return x.final(ctx, rc, q, a2a.TaskStateCompleted, "", meta)
	case trace.StatusCancelled:
		return x.final(ctx, rc, q, a2a.TaskStateCanceled, "run "+fmt.Sprint(meta[metaRunID])+" was cancelled", meta)
	}
	return x.final(ctx, rc, q, a2a.TaskStateFailed, e.why, meta)
}

// final writes the task's final state, with why as the agent's message.
func (x *executor) final(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue, st a2a.TaskState, why string, meta map[string]any) error {
	var msg *a2a.Message
	if why != "" {
		msg = a2a.NewMessageForTask(a2a.MessageRoleAgent, rc, a2a.TextPart{Text: why})
	}
	ev := withMeta(a2a.NewStatusUpdateEvent(rc, st, msg), meta)
	ev.Final = true
	return q.Write(context.WithoutCancel(ctx), ev)
}

// Cancel cancels the task's run; Execute then writes its end (canceled).
// A task whose run is no longer going is ended canceled here.
func (x *executor) Cancel(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	if ex, ok := x.s.runs.Load(rc.TaskID); ok {
		ex.(core.Execution).Cancel()
	}
	return x.final(ctx, rc, q, a2a.TaskStateCanceled, "cancelled by the client", nil)
}

func withMeta(ev *a2a.TaskStatusUpdateEvent, meta map[string]any) *a2a.TaskStatusUpdateEvent {
	if len(meta) > 0 {
		ev.Metadata = meta
	}
	return ev
}

// messageText is the task (the first text part) and the context (the
// other text parts and the data parts as JSON) of a message.
func messageText(m *a2a.Message) (task, context string) {
	var rest []string
	for _, p := range m.Parts {
		switch p := p.(type) {
		case a2a.TextPart:
			if task == "" {
				task = strings.TrimSpace(p.Text)
			} else {
				rest = append(rest, p.Text)
			}
		case a2a.DataPart:
			b, _ := json.Marshal(p.Data)
			rest = append(rest, string(b))
		}
	}
	return task, strings.Join(rest, "\n\n")
}
