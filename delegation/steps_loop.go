package delegation

import (
	"fmt"

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
