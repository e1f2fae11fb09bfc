package delegation

import (
	"errors"
	"fmt"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// Answered is how an invocation ends on a turn without tool calls, as
// in-process: its text, or ErrEmptyAnswer.
func Answered(text string) Outcome {
	o := answered(text)
	return Outcome{Status: o.status, Result: o.result, Error: o.err}
}

// TurnLimit is how an invocation ends after max turns without a final
// answer, as in-process: status limit with its partial progress.
func TurnLimit(f Frame, last string) Outcome {
	return Outcome{Status: trace.StatusLimit, Result: Progress(f.Conv, last),
		Error: fmt.Sprintf("%v: %d turns without a final answer", ErrTurnLimit, f.Schedule.MaxTurns)}
}

// ErrNotDurable refuses, on an engine that runs Steps, an agent that
// dispatches agents: its background agents (dispatch_agent,
// get_agent_results) are not built there, and it would run without them.
var ErrNotDurable = errors.New("an orchestrator (dispatch_agent) does not run on engine: temporal yet (docs/temporal.md)")

// RefusedEngine is the AttrRefused kind of a delegation the engine cannot run.
const RefusedEngine = "engine"

func dispatches(a registry.Agent) bool { return a.Orchestrator || a.Subagents.Dispatch }
