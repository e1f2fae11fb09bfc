package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// PollInterval is how often a task of an agent without streaming is read.
const PollInterval = 300 * time.Millisecond

// CancelTimeout bounds the tasks/cancel sent when a delegation is cut short.
const CancelTimeout = 10 * time.Second

// message is the A2A message of task t: the task, then its context, then
// a full conversation as data.
func message(t delegation.RemoteTask) *sdk.Message {
	parts := sdk.ContentParts{sdk.TextPart{Text: t.Task}}
	if t.Context != "" {
		parts = append(parts, sdk.TextPart{Text: t.Context})
	}
	if len(t.History) > 0 {
		var msgs []any
		b, _ := json.Marshal(t.History) // plain structs: it cannot fail
		_ = json.Unmarshal(b, &msgs)
		parts = append(parts, sdk.DataPart{Data: map[string]any{"messages": msgs}})
	}
	return sdk.NewMessage(sdk.MessageRoleUser, parts...)
}

// tracker follows one remote task through the events or reads of it.
type tracker struct {
	attrs     map[string]any // for the span: card URL, task id, state, remote run
	status    func(delegation.RemoteStatus)
	started   func(id sdk.TaskID, contextID string) // told once, when the task is named
	id        sdk.TaskID
	state     sdk.TaskState
	last      string                       // the last status message's text
	artifacts map[sdk.ArtifactID]*artifact // in the order they came
	order     []sdk.ArtifactID
	reply     string // a Message answer instead of a task
}

type artifact struct{ text []string }

// stream sends the message with message/stream and follows the task to
// its end.
func (tr *tracker) stream(ctx context.Context, c *a2aclient.Client, p *sdk.MessageSendParams) error {
	for ev, err := range c.SendStreamingMessage(ctx, p) {
		if err != nil {
			return err
		}
		tr.see(ev)
		if tr.ended() {
			return nil
		}
	}
	if !tr.ended() {
		return errors.New("the stream ended before the task did")
	}
	return nil
}

// poll sends the message with a non-blocking message/send and reads the
// task with tasks/get until it ends.
func (tr *tracker) poll(ctx context.Context, c *a2aclient.Client, p *sdk.MessageSendParams) error {
	res, err := c.SendMessage(ctx, p)
	if err != nil {
		return err
	}
	tr.see(res)
	return tr.follow(ctx, c)
}

// follow reads the task with tasks/get until it ends.
func (tr *tracker) follow(ctx context.Context, c *a2aclient.Client) error {
	for !tr.ended() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(PollInterval):
		}
		if err := tr.read(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// read takes in the task as tasks/get gives it.
func (tr *tracker) read(ctx context.Context, c *a2aclient.Client) error {
	task, err := c.GetTask(ctx, &sdk.TaskQueryParams{ID: tr.id})
	if err != nil {
		return err
	}
	tr.see(task)
	return nil
}

// resume follows the task an earlier attempt of the delegation started
// (ref) to its end, sending nothing: it reads the task (its state and the
// artifacts so far), then with streaming follows it with
// tasks/resubscribe, which gives only later events, else (or when the
// stream ends first: a task that ended in between is no longer
// resubscribable) with tasks/get. When the stream ends, the task is read
// again: artifacts written between the first read and the stream are in
// no event. A task the remote does not know is an error naming it:
// sending it again would have the work done twice.
func (tr *tracker) resume(ctx context.Context, c *a2aclient.Client, streaming bool, ref delegation.RemoteRef) error {
	tr.learn(sdk.TaskID(ref.TaskID), ref.ContextID)
	err := tr.read(ctx, c)
	if streaming && err == nil && !tr.ended() {
		for ev, serr := range c.ResubscribeToTask(ctx, &sdk.TaskIDParams{ID: tr.id}) {
			if serr != nil {
				break
			}
			if tr.see(ev); tr.ended() {
				break
			}
		}
		err = tr.read(ctx, c)
	}
	if errors.Is(err, sdk.ErrTaskNotFound) {
		return fmt.Errorf("the remote task %s, which an earlier attempt of this delegation started, is not known there (%w); it is not sent again", ref.TaskID, err)
	}
	if err != nil {
		return err
	}
	return tr.follow(ctx, c)
}

// see takes in one event (a task, a status or artifact update, a message).
func (tr *tracker) see(ev sdk.Event) {
	switch ev := ev.(type) {
	case *sdk.Task:
		tr.learn(ev.ID, ev.ContextID)
		tr.artifacts, tr.order = nil, nil // a task carries all of them
		for _, a := range ev.Artifacts {
			tr.artifact(a, false)
		}
		tr.moved(ev.Status)
	case *sdk.TaskStatusUpdateEvent:
		tr.learn(ev.TaskID, ev.ContextID)
		tr.remoteRun(ev.Metadata)
		tr.moved(ev.Status)
	case *sdk.TaskArtifactUpdateEvent:
		tr.learn(ev.TaskID, ev.ContextID)
		tr.artifact(ev.Artifact, ev.Append)
	case *sdk.Message:
		tr.reply, tr.state = texts(ev.Parts), sdk.TaskStateCompleted
	}
}

// learn notes the task's id the first time the remote names it, and tells
// started.
func (tr *tracker) learn(id sdk.TaskID, contextID string) {
	if tr.id == "" && id != "" {
		tr.id = id
		tr.attrs[semconv.AttrA2ATaskID] = string(id)
		if contextID != "" {
			tr.attrs[semconv.AttrA2AContextID] = contextID
		}
		if tr.started != nil {
			tr.started(id, contextID)
		}
	}
}

// moved records a state the task reached, and tells it when it is new.
func (tr *tracker) moved(st sdk.TaskStatus) {
	msg, prev := "", tr.last
	if st.Message != nil {
		msg = texts(st.Message.Parts)
		tr.last = msg
	}
	if st.State == tr.state && (msg == "" || msg == prev) { // nothing new (a task read again)
		return
	}
	tr.state = st.State
	tr.attrs[semconv.AttrA2ATaskState] = string(st.State)
	if tr.status != nil {
		tr.status(delegation.RemoteStatus{TaskID: string(tr.id), State: string(st.State), Message: msg})
	}
}

func (tr *tracker) artifact(a *sdk.Artifact, appended bool) {
	if a == nil {
		return
	}
	if tr.artifacts == nil {
		tr.artifacts = map[sdk.ArtifactID]*artifact{}
	}
	got, ok := tr.artifacts[a.ID]
	if !ok || !appended {
		if !ok {
			tr.order = append(tr.order, a.ID)
		}
		got = &artifact{}
		tr.artifacts[a.ID] = got
	}
	for _, p := range a.Parts {
		switch p := p.(type) {
		case sdk.TextPart:
			got.text = append(got.text, p.Text)
		case sdk.DataPart:
			tr.remoteRun(p.Data)
		}
	}
}

// remoteRun notes the run an agentry on the far side names (web/a2a puts
// run_id on its status updates and in its outcome).
func (tr *tracker) remoteRun(m map[string]any) {
	if id, ok := m["run_id"].(string); ok && id != "" {
		tr.attrs[semconv.AttrRemoteRunID] = id
	}
}

// ended reports whether the task reached a terminal state.
func (tr *tracker) ended() bool { return tr.state.Terminal() }

// outcome is the delegation's end by the task's.
func (tr *tracker) outcome() delegation.RemoteOutcome {
	o := delegation.RemoteOutcome{Result: tr.result(), Attributes: tr.attrs}
	switch tr.state {
	case sdk.TaskStateCompleted:
		o.Status = trace.StatusOK
	case sdk.TaskStateCanceled:
		o.Status, o.Error = trace.StatusCancelled, tr.why("the remote task was canceled")
	case sdk.TaskStateRejected:
		o.Status, o.Error = trace.StatusDenied, tr.why("the remote agent rejected the task")
	default:
		o.Status, o.Error = trace.StatusError, tr.why("the remote task ended "+string(tr.state))
	}
	return o
}

func (tr *tracker) why(fallback string) string {
	if tr.last != "" {
		return tr.last
	}
	return fallback
}

// result is the text of the task's artifacts, else its reply or last message.
func (tr *tracker) result() string {
	var parts []string
	for _, id := range tr.order {
		parts = append(parts, tr.artifacts[id].text...)
	}
	switch {
	case len(parts) > 0:
		return strings.Join(parts, "\n\n")
	case tr.reply != "":
		return tr.reply
	case tr.state == sdk.TaskStateCompleted:
		return tr.last
	}
	return ""
}

// cancel asks the remote side to cancel the task the delegation no
// longer waits for, on a context of its own, and ends it cancelled (the
// runtime reads ctx's cause for the exact status).
func (tr *tracker) cancel(ctx context.Context, c *a2aclient.Client) delegation.RemoteOutcome {
	o := delegation.RemoteOutcome{Status: trace.StatusCancelled, Error: context.Cause(ctx).Error(), Attributes: tr.attrs}
	if tr.id == "" { // cut short before the remote named its task
		return o
	}
	cctx, stop := context.WithTimeout(context.WithoutCancel(ctx), CancelTimeout)
	defer stop()
	task, err := c.CancelTask(cctx, &sdk.TaskIDParams{ID: tr.id})
	if err != nil {
		o.Error += fmt.Sprintf(" (tasks/cancel of remote task %s failed: %v)", tr.id, err)
		return o
	}
	tr.see(task)
	return o
}

// handedOver is the outcome of an attempt that leaves its task, running,
// to a later attempt (delegation.HandedOver).
func (tr *tracker) handedOver() delegation.RemoteOutcome {
	return delegation.RemoteOutcome{HandedOver: true, Attributes: tr.attrs}
}

// failed is the outcome of a delegation that got no task's end.
func (tr *tracker) failed(err error) delegation.RemoteOutcome {
	return delegation.RemoteOutcome{Status: trace.StatusError, Error: err.Error(), Attributes: tr.attrs}
}

// texts joins a message's text parts.
func texts(parts sdk.ContentParts) string {
	var out []string
	for _, p := range parts {
		if t, ok := p.(sdk.TextPart); ok {
			out = append(out, t.Text)
		}
	}
	return strings.Join(out, "\n")
}
