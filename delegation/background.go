package delegation

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// delegateInBackground starts a delegate call with background: true and
// answers at once; get_agent_results (by its id, or the agent's name and a
// number) collects it. It runs as any delegation does, against a copy of
// the conversation as it was, since the parent goes on meanwhile.
//
// A streamed call (parallel_streaming) is the same, except that its result
// is given to the model unasked as soon as it lands (streaming.go).
func (inv *invocation) delegateInBackground(ctx context.Context, c model.ToolCall, stream bool) string {
	js := inv.jobTable(ctx)
	j := &job{started: inv.rn.rt.cfg.Now(), stream: stream}
	added := false
	d, id := inv.backgroundCall(c, func(id string) bool { j.id = id; added = js.add(j); return !added })
	j.agent = d.args.Agent
	if out, refused := inv.refuseBackground(d); refused {
		if added { // a job nobody runs must still end, or get_agent_results waits for it forever
			j.end(outcome{status: d.res.Status, result: d.res.Result, err: d.res.Error}, 0, inv.rn.rt.cfg.Now())
		}
		return out
	}
	snap := *inv
	snap.conv = slices.Clone(inv.conv)
	turn := inv.thisTurn()
	js.start(j, inv.rn.rt.cfg.Now, func(ctx context.Context) (outcome, int) {
		if snap.prepare(d) && snap.admitTurn(ctx, d, turn) {
			defer turn.slots.release()
			if snap.admit(ctx, d) {
				snap.runChildSafely(ctx, d)
			}
		}
		return outcome{status: d.res.Status, result: d.res.Result, err: d.res.Error}, 0
	}, nil)
	return backgroundRunning(d.args.Agent, id, stream)
}

// backgroundCall reads a background delegate call and names its job: its
// id, or the agent's name and a number. taken says (and claims) whether an
// id is used already.
func (inv *invocation) backgroundCall(c model.ToolCall, taken func(string) bool) (*delegation, string) {
	d := inv.newDelegation(0, c)
	id := d.args.ID
	if id == "" {
		id = fmt.Sprintf("%s-%d", d.args.Agent, inv.rn.seq.Add(1))
	}
	if d.argErr == nil && len(d.args.DependsOn) > 0 {
		d.argErr = fmt.Errorf("a background delegation takes no depends_on (dispatch_agent does)")
	}
	if d.argErr == nil && taken(id) {
		d.argErr = fmt.Errorf("id %q is already used", id)
	}
	return d, id
}

// refuseBackground opens a background call's span and refuses it when its
// arguments are wrong: then it returns the result the model reads.
func (inv *invocation) refuseBackground(d *delegation) (string, bool) {
	inv.begin(d)
	if d.argErr == nil {
		return "", false
	}
	inv.refuse(d, trace.StatusError, RefusedArguments, d.argErr.Error(), nil)
	return d.res.text(), true
}

// admitTurn waits for a place in the line of the agents its turn started
// (limits.turn_agents): calls over the cap wait, they are not refused. It
// reports false when the wait was cut short (d is then finished).
func (inv *invocation) admitTurn(ctx context.Context, d *delegation, turn *turnBudget) bool {
	if _, err := inv.takeSlot(ctx, d, turn.slots, semconv.CapTurn); err != nil {
		o := failed(ctx, err)
		inv.finish(d, o.status, "", o.err, nil)
		return false
	}
	return true
}

func backgroundRunning(agent, id string, stream bool) string {
	reply := map[string]any{"status": "running", "agent": agent, "agent_id": id}
	if stream {
		reply["note"] = "its result comes to you as soon as it lands"
	}
	out, _ := json.Marshal(reply)
	return string(out)
}
