package delegation

import (
	"github.com/agentry/agentry/trace"
)

// Answered is how an invocation ends on a turn without tool calls, as
// in-process: its text, or ErrEmptyAnswer.
func Answered(text string) Outcome {
	o := answered(text)
	return Outcome{Status: o.status, Result: o.result, Error: o.err}
}

// TurnLimit is how an invocation ends after max turns (or an
// orchestrator's loop limit) without a final answer, as in-process: status
// limit with its partial progress; agents are its background agents whose
// results its model had not had.
func TurnLimit(f Frame, last string, agents []AgentReport) Outcome {
	why := turnLimit(f.Schedule.MaxTurns, f.Schedule.LoopLimit)
	return Outcome{Status: trace.StatusLimit, Result: Progress(f.Conv, last, why, agents), Error: why}
}

// LoopLimitWhy is why the tool calls of model turn turn (from 0) of f are
// not run ("" when they run): it is an orchestrator's last under
// limits.orchestrator_turns, so no later turn could read their results and
// the agents it dispatched would be stopped as they started (seed 001
// refuses them: its "Not yet started").
func LoopLimitWhy(f Frame, turn int) string {
	return loopLimitWhy(f.Schedule.MaxTurns, f.Schedule.LoopLimit, turn)
}

func loopLimitWhy(n int, loop bool, turn int) string {
	if loop && turn == n-1 {
		return turnLimit(n, true)
	}
	return ""
}
