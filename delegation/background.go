package delegation

import (
	"encoding/json"
	"fmt"

	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/model"
)

// A delegate call with background: true answers at once;
// get_agent_results (by its id, or the agent's name and a number) collects
// it. It runs as any delegation does (the loop schedules it, package loop),
// against the conversation as it was, since the parent goes on meanwhile.
// A streamed call (parallel_streaming) is the same, except that its result
// is given to the model unasked as soon as it lands.

// backgroundCall reads a background delegate call, opens its span and names
// its job: its id, or the agent's name and n (the n-th background agent of
// its delegator). taken says whether an id is used already. A call whose
// arguments are wrong has argErr set.
func (inv *invocation) backgroundCall(c model.ToolCall, taken func(string) bool, n int) (*delegation, string) {
	args, argErr := loop.ParseDelegate(c)
	d := &delegation{call: c, args: &args, argErr: argErr}
	id := d.args.ID
	if id == "" {
		id = fmt.Sprintf("%s-%d", d.args.Agent, n)
	}
	if d.argErr == "" && len(d.args.DependsOn) > 0 {
		d.argErr = "a background delegation takes no depends_on (dispatch_agent does)"
	}
	if d.argErr == "" && taken(id) {
		d.argErr = fmt.Sprintf("id %q is already used", id)
	}
	inv.begin(d)
	return d, id
}

func backgroundRunning(agent, id string, stream bool) string {
	reply := map[string]any{"status": loop.ReportRunning, "agent": agent, "agent_id": id}
	if stream {
		reply["note"] = "its result comes to you as soon as it lands"
	}
	out, _ := json.Marshal(reply)
	return string(out)
}
