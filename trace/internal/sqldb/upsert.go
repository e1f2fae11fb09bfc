package sqldb

// What a later write of a run or a span replaces (trace.Store.Apply: each
// replaces the stored state for its ID), the end of each store's own
// upsert. A run keeps the owner of its first write: the reapers ask
// whether that writer lives. A span keeps its row key, and with it the
// place it sorts at among spans that start at the same time.
const (
	UpsertRun = `
ON CONFLICT (id) DO UPDATE SET
    agent = excluded.agent, task = excluded.task, model = excluded.model,
    status = excluded.status, started_at = excluded.started_at, ended_at = excluded.ended_at,
    result = excluded.result, error = excluded.error, input_tokens = excluded.input_tokens,
    output_tokens = excluded.output_tokens, agents = excluded.agents, cost_usd = excluded.cost_usd`
	UpsertSpan = `
ON CONFLICT (run_key, id) DO UPDATE SET
    parent_id = excluded.parent_id, kind = excluded.kind, name = excluded.name,
    agent = excluded.agent, depth = excluded.depth, status = excluded.status,
    started_at = excluded.started_at, ended_at = excluded.ended_at,
    input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
    error = excluded.error, attributes = excluded.attributes, events = excluded.events,
    seq = excluded.seq`
)
