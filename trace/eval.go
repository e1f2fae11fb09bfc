package trace

import (
	"context"
	"fmt"
	"time"
)

// Eval is one run of an evaluation suite (`agentry eval SUITE`): which
// suite, against what, and how many of its cases passed. Its cases are
// EvalCases, each with the run it made.
type Eval struct {
	ID    string `json:"id"`
	Suite string `json:"suite"`
	// Target is the agent or workflow the suite evaluates, Kind which of
	// the two ("agent", "workflow").
	Target string `json:"target"`
	Kind   string `json:"kind"`
	// Version is the target's version (an agent's file hash) the cases ran
	// with; Label says where it came from: "current", "version 3f2a9c1d",
	// "agents ./other".
	Version string `json:"version"`
	Label   string `json:"label"`
	// Versions are the versions of every agent the cases invoked, by id.
	Versions  map[string]string `json:"versions"`
	StartedAt time.Time         `json:"started_at"`
	EndedAt   time.Time         `json:"ended_at"`
	Passed    int               `json:"passed"`
	Failed    int               `json:"failed"`
}

// EvalCase is how one case of an Eval went.
type EvalCase struct {
	EvalID string `json:"eval_id"`
	Name   string `json:"name"`
	// RunID is the run the case made ("" when it could not start).
	RunID    string   `json:"run_id"`
	Passed   bool     `json:"passed"`
	Failures []string `json:"failures"`
	// Checks are every expectation's verdict, passed or not.
	Checks []EvalCheck `json:"checks"`
	// Output is the run's final answer (a workflow's final output as JSON).
	Output       string        `json:"output"`
	Status       Status        `json:"status"`
	InputTokens  int64         `json:"input_tokens"`
	OutputTokens int64         `json:"output_tokens"`
	CostUSD      float64       `json:"cost_usd"`
	Duration     time.Duration `json:"duration_ns"`
}

// EvalCheck is one expectation of a case and its verdict. A rubric's check
// carries the judge's answer and reasoning.
type EvalCheck struct {
	// Kind is the expectation: output_contains, output_regex,
	// output_schema, trajectory, max_tokens, max_cost, max_time,
	// no_denied, rubric.
	Kind   string `json:"kind"`
	Passed bool   `json:"passed"`
	// Detail says what was expected and what was found.
	Detail string `json:"detail"`
	// Score is the trajectory's match score (0 to 1); nil for others.
	Score *float64 `json:"score,omitempty"`
	// Judge is a rubric's verdict; nil for others.
	Judge *Judgement `json:"judge,omitempty"`
}

// Judgement is a model's verdict on a rubric.
type Judgement struct {
	Model     string `json:"model"`
	Rubric    string `json:"rubric"`
	Answer    string `json:"answer"` // "pass" or "fail", as the judge said it
	Reasoning string `json:"reasoning"`
}

// EvalStore keeps eval results beside the runs their cases made. It is
// optional, as VersionStore is. Implementations are safe for concurrent use.
type EvalStore interface {
	// AddEval stores an eval and its cases in one transaction; an eval
	// without ID or Suite, or a case of another eval, is ErrInvalid.
	AddEval(ctx context.Context, e Eval, cases []EvalCase) error
	// Evals lists evals newest first (by StartedAt, then ID), of one suite
	// or ("") of every suite, at most limit (0 means DefaultLimit).
	Evals(ctx context.Context, suite string, limit int) ([]Eval, error)
	// Eval returns one eval and its cases in the order they were stored,
	// or ErrNotFound.
	Eval(ctx context.Context, id string) (Eval, []EvalCase, error)
	// EvalOfRun returns the eval and case a run was made for, or
	// ErrNotFound for a run that belongs to none.
	EvalOfRun(ctx context.Context, runID string) (Eval, EvalCase, error)
}

// CheckEval returns ErrInvalid for an eval a store cannot take.
func CheckEval(e Eval, cases []EvalCase) error {
	if e.ID == "" || e.Suite == "" {
		return fmt.Errorf("%w: an eval needs an id and a suite", ErrInvalid)
	}
	for _, c := range cases {
		if c.EvalID != e.ID || c.Name == "" {
			return fmt.Errorf("%w: case %q does not belong to eval %s", ErrInvalid, c.Name, e.ID)
		}
	}
	return nil
}
