package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/internal/sqldb"
	"github.com/agentry/agentry/trace/internal/storekit"
)

var _ trace.EvalStore = (*Store)(nil)

const (
	evalColumns     = `id, suite, target, kind, version, label, versions, started_at, ended_at, passed, failed`
	evalCaseColumns = `eval_id, name, run_id, passed, failures, checks, output, status, input_tokens, output_tokens, cost_usd, duration_ns`
)

// AddEval stores an eval and its cases in one transaction; see
// trace.EvalStore.
func (s *Store) AddEval(ctx context.Context, e trace.Eval, cases []trace.EvalCase) error {
	if err := trace.CheckEval(e, cases); err != nil {
		return err
	}
	versions, err := json.Marshal(e.Versions)
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO evals (`+evalColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
			sqldb.Clean(e.ID), sqldb.Clean(e.Suite), sqldb.Clean(e.Target), e.Kind, e.Version, sqldb.Clean(e.Label), string(versions),
			sqldb.ToNS(e.StartedAt), sqldb.ToNS(e.EndedAt), e.Passed, e.Failed); err != nil {
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
			if _, err := tx.Exec(ctx, `INSERT INTO eval_cases (seq, `+evalCaseColumns+`)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
				i, sqldb.Clean(c.EvalID), sqldb.Clean(c.Name), sqldb.Clean(c.RunID), c.Passed, string(failures), string(checks), sqldb.Clean(c.Output),
				string(c.Status), c.InputTokens, c.OutputTokens, c.CostUSD, int64(c.Duration)); err != nil {
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
func (s *Store) Evals(ctx context.Context, suite string, limit int) ([]trace.Eval, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+evalColumns+` FROM evals
WHERE $1 = '' OR suite = $1 ORDER BY started_at DESC, id DESC LIMIT $2`, sqldb.Clean(suite), storekit.PageLimit(limit))
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (trace.Eval, error) { return scanEval(row) })
}

// Eval returns one eval and its cases in the order they were stored; see
// trace.EvalStore.
func (s *Store) Eval(ctx context.Context, id string) (trace.Eval, []trace.EvalCase, error) {
	e, err := scanEval(s.pool.QueryRow(ctx, `SELECT `+evalColumns+` FROM evals WHERE id = $1`, sqldb.Clean(id)))
	if errors.Is(err, pgx.ErrNoRows) {
		return trace.Eval{}, nil, fmt.Errorf("eval %q: %w", id, trace.ErrNotFound)
	}
	if err != nil {
		return trace.Eval{}, nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT `+evalCaseColumns+` FROM eval_cases WHERE eval_id = $1 ORDER BY seq`, sqldb.Clean(id))
	if err != nil {
		return trace.Eval{}, nil, err
	}
	cases, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (trace.EvalCase, error) { return scanEvalCase(row) })
	return e, cases, err
}

// EvalOfRun returns the eval and case a run was made for; see
// trace.EvalStore.
func (s *Store) EvalOfRun(ctx context.Context, runID string) (trace.Eval, trace.EvalCase, error) {
	c, err := scanEvalCase(s.pool.QueryRow(ctx, `SELECT `+evalCaseColumns+` FROM eval_cases
WHERE run_id = $1 AND run_id <> '' ORDER BY eval_id, seq LIMIT 1`, sqldb.Clean(runID)))
	if errors.Is(err, pgx.ErrNoRows) {
		return trace.Eval{}, trace.EvalCase{}, fmt.Errorf("run %q belongs to no eval: %w", runID, trace.ErrNotFound)
	}
	if err != nil {
		return trace.Eval{}, trace.EvalCase{}, err
	}
	e, err := scanEval(s.pool.QueryRow(ctx, `SELECT `+evalColumns+` FROM evals WHERE id = $1`, c.EvalID))
	return e, c, err
}

func scanEval(row pgx.Row) (trace.Eval, error) {
	var e trace.Eval
	var versions []byte
	var started, ended *int64
	if err := row.Scan(&e.ID, &e.Suite, &e.Target, &e.Kind, &e.Version, &e.Label, &versions, &started, &ended, &e.Passed, &e.Failed); err != nil {
		return trace.Eval{}, err
	}
	e.StartedAt, e.EndedAt = sqldb.FromNS(started), sqldb.FromNS(ended)
	if err := json.Unmarshal(versions, &e.Versions); err != nil {
		return trace.Eval{}, fmt.Errorf("eval %s: versions: %w", e.ID, err)
	}
	return e, nil
}

func scanEvalCase(row pgx.Row) (trace.EvalCase, error) {
	var c trace.EvalCase
	var failures, checks []byte
	var status string
	var ns int64
	if err := row.Scan(&c.EvalID, &c.Name, &c.RunID, &c.Passed, &failures, &checks, &c.Output, &status,
		&c.InputTokens, &c.OutputTokens, &c.CostUSD, &ns); err != nil {
		return trace.EvalCase{}, err
	}
	c.Status, c.Duration = trace.Status(status), time.Duration(ns)
	if err := json.Unmarshal(failures, &c.Failures); err != nil {
		return trace.EvalCase{}, fmt.Errorf("eval %s case %s: failures: %w", c.EvalID, c.Name, err)
	}
	if err := json.Unmarshal(checks, &c.Checks); err != nil {
		return trace.EvalCase{}, fmt.Errorf("eval %s case %s: checks: %w", c.EvalID, c.Name, err)
	}
	return c, nil
}
