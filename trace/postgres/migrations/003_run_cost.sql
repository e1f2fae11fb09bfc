-- A run's cost in USD, kept by the runtime as its chat calls are priced,
-- so the runs list can sort by it without reading every run's spans.
-- DOUBLE PRECISION, SQLite's REAL: a run reads back with the float it was
-- given.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS cost_usd DOUBLE PRECISION NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS runs_by_cost ON runs (cost_usd DESC, started_at DESC, id DESC);
