-- A run's cost in USD, kept by the runtime as its chat calls are priced,
-- so the runs list can sort by it without reading every run's spans.
ALTER TABLE runs ADD COLUMN cost_usd REAL NOT NULL DEFAULT 0;
CREATE INDEX runs_by_cost ON runs (cost_usd DESC, started_at DESC, id DESC);
