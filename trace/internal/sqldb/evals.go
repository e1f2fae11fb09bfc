package sqldb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/internal/storekit"
)

var _ trace.EvalStore = (*Tables)(nil)

const (
	evalColumns     = `id, suite, target, kind, version, label, versions, started_at, ended_at, passed, failed`
	evalCaseColumns = `eval_id, name, run_id, passed, failures, checks, output, status, input_tokens, output_tokens, cost_usd, duration_ns`
)

// AddEval stores an eval and its cases in one transaction; see
// trace.EvalStore.
func (t *Tables) AddEval(ctx context.Context, e trace.Eval, cases []trace.EvalCase) error {
	if err := trace.CheckEval(e, cases); err != nil {
		return err
	}
	versions, err := json.Marshal(e.Versions)
	if err != nil {
		return err
	}
	err = t.write(ctx, func(tx DB) error {
		if _, err := tx.Exec(ctx, `INSERT INTO evals (`+evalColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.ID, e.Suite, e.Target, e.Kind, e.Version, e.Label, string(versions), ToNS(e.StartedAt), ToNS(e.EndedAt), e.Passed, e.Failed); err != nil {
			return err
		}
		for i, c := range cases {
			failures, err := json.Marshal(c.Failures)
			if err != nil {
				return err
			}
			checks, err := json.Marshal(c.Checks)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO eval_cases (seq, `+evalCaseColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				i, c.EvalID, c.Name, c.RunID, c.Passed, string(failures), string(checks), c.Output, string(c.Status),
				c.InputTokens, c.OutputTokens, c.CostUSD, int64(c.Duration)); err != nil {
				return fmt.Errorf("case %s: %w", c.Name, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add eval %s: %w", e.ID, err)
	}
	return nil
}

// Evals lists evals newest first; see trace.EvalStore.
func (t *Tables) Evals(ctx context.Context, suite string, limit int) ([]trace.Eval, error) {
	rows, err := t.read.Query(ctx, `SELECT `+evalColumns+` FROM evals
WHERE ? = '' OR suite = ? ORDER BY started_at DESC, id DESC LIMIT ?`, suite, suite, storekit.PageLimit(limit))
	var out []trace.Eval
	err = each(rows, err, func(rows Rows) error {
		e, err := scanEval(rows)
		out = append(out, e)
		return err
	})
	return out, err
}

// Eval returns one eval and its cases in the order they were stored; see
// trace.EvalStore.
func (t *Tables) Eval(ctx context.Context, id string) (trace.Eval, []trace.EvalCase, error) {
	e, err := scanEval(t.read.QueryRow(ctx, `SELECT `+evalColumns+` FROM evals WHERE id = ?`, id))
	if errors.Is(err, ErrNoRows) {
		return trace.Eval{}, nil, fmt.Errorf("eval %q: %w", id, trace.ErrNotFound)
	}
	if err != nil {
		return trace.Eval{}, nil, err
	}
	rows, err := t.read.Query(ctx, `SELECT `+evalCaseColumns+` FROM eval_cases WHERE eval_id = ? ORDER BY seq`, id)
	var cases []trace.EvalCase
	err = each(rows, err, func(rows Rows) error {
		c, err := scanEvalCase(rows)
		cases = append(cases, c)
		return err
	})
	if err != nil {
		return trace.Eval{}, nil, err
	}
	return e, cases, nil
}

// EvalOfRun returns the eval and case a run was made for; see
// trace.EvalStore.
func (t *Tables) EvalOfRun(ctx context.Context, runID string) (trace.Eval, trace.EvalCase, error) {
	c, err := scanEvalCase(t.read.QueryRow(ctx, `SELECT `+evalCaseColumns+` FROM eval_cases
WHERE run_id = ? AND run_id <> '' ORDER BY eval_id, seq LIMIT 1`, runID))
	if errors.Is(err, ErrNoRows) {
		return trace.Eval{}, trace.EvalCase{}, fmt.Errorf("run %q belongs to no eval: %w", runID, trace.ErrNotFound)
	}
	if err != nil {
		return trace.Eval{}, trace.EvalCase{}, err
	}
	e, err := scanEval(t.read.QueryRow(ctx, `SELECT `+evalColumns+` FROM evals WHERE id = ?`, c.EvalID))
	return e, c, err
}

func scanEval(row Row) (trace.Eval, error) {
	var e trace.Eval
	var versions string
	var started, ended *int64
	if err := row.Scan(&e.ID, &e.Suite, &e.Target, &e.Kind, &e.Version, &e.Label, &versions, &started, &ended, &e.Passed, &e.Failed); err != nil {
		return trace.Eval{}, err
	}
	e.StartedAt, e.EndedAt = FromNS(started), FromNS(ended)
	if err := json.Unmarshal([]byte(versions), &e.Versions); err != nil {
		return trace.Eval{}, fmt.Errorf("eval %s: versions: %w", e.ID, err)
	}
	return e, nil
}

func scanEvalCase(row Row) (trace.EvalCase, error) {
	var c trace.EvalCase
	var failures, checks, status string
	var ns int64
	if err := row.Scan(&c.EvalID, &c.Name, &c.RunID, &c.Passed, &failures, &checks, &c.Output, &status,
		&c.InputTokens, &c.OutputTokens, &c.CostUSD, &ns); err != nil {
		return trace.EvalCase{}, err
	}
	c.Status, c.Duration = trace.Status(status), time.Duration(ns)
	if err := json.Unmarshal([]byte(failures), &c.Failures); err != nil {
		return trace.EvalCase{}, fmt.Errorf("eval %s case %s: failures: %w", c.EvalID, c.Name, err)
	}
	if err := json.Unmarshal([]byte(checks), &c.Checks); err != nil {
		return trace.EvalCase{}, fmt.Errorf("eval %s case %s: checks: %w", c.EvalID, c.Name, err)
	}
	return c, nil
}
