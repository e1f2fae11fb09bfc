package trace

import (
	"errors"
	"time"
)

// Kind is a span's operation, named after the OpenTelemetry GenAI conventions.
type Kind string

// Span kinds.
const (
	KindInvokeAgent Kind = "invoke_agent" // one agent invocation
	KindChat        Kind = "chat"         // one model call
	KindExecuteTool Kind = "execute_tool" // one tool call; a delegation is one too
	// KindInvokeWorkflow is the root span of a workflow run; KindWorkflowStep
	// one of its steps, with the step's agent invocations below it.
	KindInvokeWorkflow Kind = "invoke_workflow"
	KindWorkflowStep   Kind = "workflow_step"
)

// Status of a run or a span.
type Status string

// Statuses. Running is the only one that is not final.
const (
	StatusRunning   Status = "running"
	StatusOK        Status = "ok"
	StatusError     Status = "error"
	StatusTimeout   Status = "timeout"
	StatusCancelled Status = "cancelled"
	StatusDenied    Status = "denied"
	StatusSkipped   Status = "skipped"
	// StatusLimit ends a run or span stopped by a budget or a limit; its
	// result is the work so far (a budget's partial-progress report).
	StatusLimit       Status = "limit"
	StatusInterrupted Status = "interrupted" // left running by a process that died
)

// IsKnown reports whether k is one of the span kinds above.
func (k Kind) IsKnown() bool {
	return k == KindInvokeAgent || k == KindChat || k == KindExecuteTool ||
		k == KindInvokeWorkflow || k == KindWorkflowStep
}

// Statuses returns every status a run or span may have, Running first.
func Statuses() []Status {
	return []Status{StatusRunning, StatusOK, StatusError, StatusTimeout, StatusCancelled,
		StatusDenied, StatusSkipped, StatusInterrupted, StatusLimit}
}

// IsKnown reports whether s is one of the statuses above.
func (s Status) IsKnown() bool {
	switch s {
	case StatusRunning, StatusOK, StatusError, StatusTimeout, StatusCancelled,
		StatusDenied, StatusSkipped, StatusInterrupted, StatusLimit:
		return true
	}
	return false
}

// Run is one top-level agent invocation and everything under it.
type Run struct {
	ID        string    `json:"id"`
	Agent     string    `json:"agent"`
	Task      string    `json:"task"`
	Model     string    `json:"model,omitempty"`
	Status    Status    `json:"status"`
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"` // zero while running
	Result    string    `json:"result"`
	Error     string    `json:"error,omitempty"`
	// Totals kept by the runtime as the run goes.
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	Agents       int   `json:"agents"` // invoke_agent spans so far
	// CostUSD sums the run's priced chat calls (docs/cost.md); 0 when none
	// was priced.
	CostUSD float64 `json:"cost_usd,omitempty"`
	// Durable is set by an engine whose runs outlive the processes that
	// write them (engine: temporal): no process owns such a run, so no
	// reaper marks it interrupted (or denies its pending approvals) when a
	// writer ends. Stores record it on the run's first write.
	Durable bool `json:"durable,omitempty"`
}

// Span is one timed operation of a run.
type Span struct {
	ID           string         `json:"id"`
	RunID        string         `json:"run_id"`
	ParentID     string         `json:"parent_id"` // "" for the root invoke_agent span
	Kind         Kind           `json:"kind"`
	Name         string         `json:"name"` // "invoke_agent data-analyst", "chat demo", "execute_tool delegate"
	Agent        string         `json:"agent"`
	Depth        int            `json:"depth"` // delegation depth of Agent; 0 for the root agent
	Status       Status         `json:"status"`
	StartedAt    time.Time      `json:"started_at"`
	EndedAt      time.Time      `json:"ended_at"` // zero while running
	InputTokens  int64          `json:"input_tokens"`
	OutputTokens int64          `json:"output_tokens"`
	Error        string         `json:"error"`
	Attributes   map[string]any `json:"attributes"`
	// Events are what happened at one instant during the span, in the order
	// they happened: a retry's backoff, a wait for a concurrency slot.
	Events []Event `json:"events,omitempty"`
}

// Event is something that happened at one instant during a span, after the
// OpenTelemetry span event. Its Attributes are owned like a span's: a Sink
// takes them as they are, so the runtime passes a new map for each event.
type Event struct {
	Time       time.Time      `json:"time"`
	Name       string         `json:"name"`
	Attributes map[string]any `json:"attributes,omitempty"`
}

// Sink receives the current state of runs and spans as a run happens. Each call
// replaces what was recorded before for that ID, so the runtime records a span
// when it starts and again when it changes or ends.
//
// Implementations are safe for concurrent use and never block a caller for long.
// The Sink owns the Attributes map once called: a caller that changes
// attributes later passes a new map (maps.Clone), so no copy is made per call.
// A Sink only reads the maps it is given, so a caller may read them later and
// give one unchanged map with many records (delegation does, for chat spans).
type Sink interface {
	RecordRun(Run)
	RecordSpan(Span)
}

// ErrNotFound is returned for a run ID that the store does not hold.
var ErrNotFound = errors.New("not found")
