package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/internal/sqldb"
	"github.com/agentry/agentry/trace/internal/storekit"
)

// Apply upserts runs and spans in one transaction; see trace.Store.
func (s *Store) Apply(ctx context.Context, runs []trace.Run, spans []trace.Span) error {
	if err := storekit.CheckApply(runs, spans); err != nil {
		return err
	}
	if len(runs)+len(spans) == 0 {
		return nil
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return s.applyTx(ctx, tx, runs, spans) })
	if err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	return nil
}

// applyTx writes runs and spans in tx. Locks are taken in one order, the
// run counters by run ID first, then runs by ID, then spans, so two
// transactions never wait on each other in a circle; and since every write
// to a run holds its counter, writers of one run take turns.
func (s *Store) applyTx(ctx context.Context, tx pgx.Tx, runs []trace.Run, spans []trace.Span) error {
	spans = lastStates(spans)
	counters, err := bumpCounters(ctx, tx, runs, spans)
	if err != nil {
		return err
	}
	if err := s.upsertRuns(ctx, tx, runs); err != nil {
		return err
	}
	if len(spans) == 0 {
		return nil
	}
	return upsertSpans(ctx, tx, counters, spans)
}

// counter is a run's key and the change numbers reserved for this
// transaction: next is the first unused one.
type counter struct{ key, next int64 }

// bumpCounters creates the key of every run the transaction touches and
// reserves one change number per span of it, in run ID order.
func bumpCounters(ctx context.Context, tx pgx.Tx, runs []trace.Run, spans []trace.Span) (map[string]*counter, error) {
	n := map[string]int64{}
	for _, r := range runs {
		n[sqldb.Clean(r.ID)] += 0
	}
	for _, sp := range spans {
		n[sqldb.Clean(sp.RunID)]++
	}
	ids := make([]string, 0, len(n))
	for id := range n {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	counts := make([]int64, len(ids))
	for i, id := range ids {
		counts[i] = n[id]
	}
	rows, err := tx.Query(ctx, `
INSERT INTO run_keys AS k (id, seq)
SELECT id, n FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS u(id, n, i) ORDER BY i
ON CONFLICT (id) DO UPDATE SET seq = k.seq + excluded.seq
RETURNING id, pk, seq`, ids, counts)
	if err != nil {
		return nil, fmt.Errorf("run counters: %w", err)
	}
	out := make(map[string]*counter, len(ids))
	var id string
	var c counter
	_, err = pgx.ForEachRow(rows, []any{&id, &c.key, &c.next}, func() error {
		out[id] = &counter{key: c.key, next: c.next - n[id] + 1}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("run counters: %w", err)
	}
	return out, nil
}

// lastStates returns spans with each (run, span) once, in the state of its
// last occurrence and at the place of its first: one statement cannot
// upsert a row twice, and the first write decides where a new span sorts
// among spans that start at the same time.
func lastStates(spans []trace.Span) []trace.Span {
	type key struct{ run, id string }
	at := make(map[key]int, len(spans))
	out := make([]trace.Span, 0, len(spans))
	for _, sp := range spans {
		k := key{sp.RunID, sp.ID}
		if i, ok := at[k]; ok {
			out[i] = sp
			continue
		}
		at[k] = len(out)
		out = append(out, sp)
	}
	return out
}

func (s *Store) upsertRuns(ctx context.Context, tx pgx.Tx, runs []trace.Run) error {
	if len(runs) == 0 {
		return nil
	}
	last := map[string]trace.Run{}
	for _, r := range runs {
		last[r.ID] = r
	}
	ids := make([]string, 0, len(last))
	for id := range last {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var c runColumns
	for _, id := range ids {
		c.add(last[id])
	}
	_, err := tx.Exec(ctx, `
INSERT INTO runs AS r (id, agent, task, model, status, started_at, ended_at, result, error,
    input_tokens, output_tokens, agents, cost_usd, owner_key, owner_host, owner_pid)
SELECT u.id, u.agent, u.task, u.model, u.status, u.started_at, u.ended_at, u.result, u.error,
    u.input_tokens, u.output_tokens, u.agents, u.cost_usd, CASE WHEN u.durable THEN 0 ELSE $14::integer END, $15::text, $16::integer
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[],
    $8::text[], $9::text[], $10::bigint[], $11::bigint[], $12::integer[], $13::float8[], $17::boolean[]) WITH ORDINALITY
    AS u(id, agent, task, model, status, started_at, ended_at, result, error, input_tokens,
    output_tokens, agents, cost_usd, durable, i)
ORDER BY u.i`+sqldb.UpsertRun,
		c.id, c.agent, c.task, c.model, c.status, c.started, c.ended, c.result, c.err,
		c.in, c.out, c.agents, c.cost, s.owner.key, s.owner.host, s.owner.pid, c.durable)
	if err != nil {
		return fmt.Errorf("upsert runs: %w", err)
	}
	return nil
}

// runColumns holds runs column by column, for unnest.
type runColumns struct {
	id, agent, task, model, status, result, err []string
	started                                     []int64
	ended                                       []*int64
	in, out                                     []int64
	agents                                      []int32
	cost                                        []float64
	durable                                     []bool // owner key 0: a run no store owns (trace.Run.Durable)
}

func (c *runColumns) add(r trace.Run) {
	c.id, c.agent, c.task, c.model = append(c.id, sqldb.Clean(r.ID)), append(c.agent, sqldb.Clean(r.Agent)), append(c.task, sqldb.Clean(r.Task)), append(c.model, sqldb.Clean(r.Model))
	c.status, c.result, c.err = append(c.status, sqldb.Clean(string(r.Status))), append(c.result, sqldb.Clean(r.Result)), append(c.err, sqldb.Clean(r.Error))
	c.started, c.ended = append(c.started, sqldb.ToNS(r.StartedAt)), append(c.ended, sqldb.EndNS(r.EndedAt))
	c.in, c.out, c.agents = append(c.in, r.InputTokens), append(c.out, r.OutputTokens), append(c.agents, int32(r.Agents))
	c.cost = append(c.cost, r.CostUSD)
	c.durable = append(c.durable, r.Durable)
}

// upsertSpans writes spans in one statement, numbering each run's changes
// from its counter in the order given.
func upsertSpans(ctx context.Context, tx pgx.Tx, counters map[string]*counter, spans []trace.Span) error {
	var c spanColumns
	for _, sp := range spans {
		k := counters[sqldb.Clean(sp.RunID)]
		c.add(k.key, sp, k.next)
		k.next++
	}
	_, err := tx.Exec(ctx, `
INSERT INTO spans AS s (run_key, id, parent_id, kind, name, agent, depth, status, started_at,
    ended_at, input_tokens, output_tokens, error, attributes, events, seq)
SELECT u.run_key, u.id, u.parent_id, u.kind, u.name, u.agent, u.depth, u.status, u.started_at,
    u.ended_at, u.input_tokens, u.output_tokens, u.error, u.attributes::json, u.events::json, u.seq
FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::integer[],
    $8::text[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::text[], $14::text[],
    $15::text[], $16::bigint[]) WITH ORDINALITY AS u(run_key, id, parent_id, kind, name, agent, depth,
    status, started_at, ended_at, input_tokens, output_tokens, error, attributes, events, seq, i)
ORDER BY u.i`+sqldb.UpsertSpan,
		c.runKey, c.id, c.parent, c.kind, c.name, c.agent, c.depth, c.status, c.started, c.ended,
		c.in, c.out, c.err, c.attrs, c.events, c.seq)
	if err != nil {
		return fmt.Errorf("upsert spans: %w", err)
	}
	return nil
}

// spanColumns holds spans column by column, for unnest.
type spanColumns struct {
	runKey, started, in, out, seq              []int64
	ended                                      []*int64
	id, parent, kind, name, agent, status, err []string
	attrs                                      []string
	events                                     []*string
	depth                                      []int32
}

func (c *spanColumns) add(runKey int64, x trace.Span, seq int64) {
	c.runKey, c.id, c.parent = append(c.runKey, runKey), append(c.id, sqldb.Clean(x.ID)), append(c.parent, sqldb.Clean(x.ParentID))
	c.kind, c.name, c.agent = append(c.kind, sqldb.Clean(string(x.Kind))), append(c.name, sqldb.Clean(x.Name)), append(c.agent, sqldb.Clean(x.Agent))
	c.depth, c.status = append(c.depth, int32(x.Depth)), append(c.status, sqldb.Clean(string(x.Status)))
	c.started, c.ended = append(c.started, sqldb.ToNS(x.StartedAt)), append(c.ended, sqldb.EndNS(x.EndedAt))
	c.in, c.out, c.err = append(c.in, x.InputTokens), append(c.out, x.OutputTokens), append(c.err, sqldb.Clean(x.Error))
	c.attrs = append(c.attrs, string(trace.EncodeAttributes(x.Attributes)))
	var events *string
	if b := storekit.EncodeEvents(x.Events); b != nil {
		e := string(b)
		events = &e
	}
	c.events, c.seq = append(c.events, events), append(c.seq, seq)
}
