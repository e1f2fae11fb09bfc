package temporal

import (
	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/sched"
	"go.temporal.io/sdk/workflow"
)

// limits.turn_tool_calls: the agents one model turn of an invocation
// dispatched share it, so the dispatcher's workflow counts it per turn, asked by signal as the root is for
// the window (ledger.go): in the order the asks reach its history.
const (
	turnCallsSignal       = "turn-calls"        // to a dispatcher: a TurnAsk
	turnCallsAnswerSignal = "turn-calls-answer" // to the asker: a TurnAnswer
)

// TurnAsk asks a dispatcher for Calls tool calls under Limit, counted in
// its model turn Turn (the one that dispatched the asker).
type TurnAsk struct {
	From                    string
	Seq, Calls, Limit, Turn int
}

// TurnAnswer grants Calls of the TurnAsk of the same Seq; Why says why the
// others may not run.
type TurnAnswer struct {
	Seq, Calls int
	Why        string
}

// listen answers the turn-call asks of the dispatcher's agents.
func (d *driver) listen() {
	if d.listening {
		return
	}
	d.listening, d.turnCalls = true, map[int]int{}
	asks := workflow.GetSignalChannel(d.jctx, turnCallsSignal)
	workflow.Go(d.jctx, func(c workflow.Context) {
		for {
			var q TurnAsk
			if !asks.Receive(c, &q) {
				return
			}
			a := TurnAnswer{Seq: q.Seq, Calls: sched.GrantCalls(d.turnCalls[q.Turn], q.Calls, q.Limit)}
			d.turnCalls[q.Turn] += a.Calls
			if a.Calls < q.Calls {
				a.Why = sched.TurnCallsFull(q.Limit)
			}
			workflow.SignalExternalWorkflow(c, q.From, "", turnCallsAnswerSignal, a)
		}
	})
}

// turnCalls asks the dispatcher of a dispatched agent for n tool calls
// under limits.turn_tool_calls: how many may run, and why not the others.
func turnCalls(ctx workflow.Context, f delegation.Frame, n int) (int, string) {
	info := workflow.GetInfo(ctx)
	if f.TurnCalls <= 0 || n == 0 || info.ParentWorkflowExecution == nil {
		return n, ""
	}
	q := TurnAsk{From: info.WorkflowExecution.ID, Seq: len(f.Conv), Calls: n, Limit: f.TurnCalls, Turn: f.Turn} // one ask per turn
	if workflow.SignalExternalWorkflow(ctx, info.ParentWorkflowExecution.ID, "", turnCallsSignal, q).Get(ctx, nil) != nil {
		return n, ""
	}
	answers := workflow.GetSignalChannel(ctx, turnCallsAnswerSignal)
	for ctx.Err() == nil {
		var a TurnAnswer
		s := workflow.NewSelector(ctx)
		s.AddReceive(answers, func(ch workflow.ReceiveChannel, _ bool) { ch.Receive(ctx, &a) })
		s.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) {})
		if s.Select(ctx); a.Seq == q.Seq {
			return a.Calls, a.Why
		}
	}
	return n, "" // cancelled: the loop stops anyway
}
