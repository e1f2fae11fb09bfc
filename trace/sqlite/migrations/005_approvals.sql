-- Approvals: calls whose permission verdict was ask, waiting for (or given)
-- a person's answer. Any process on the database may answer one; the first
-- answer wins (an UPDATE guarded by status = 'pending'). Times are Unix
-- nanoseconds; decided_at is NULL while pending.
CREATE TABLE approvals (
    id           TEXT PRIMARY KEY,
    run_id       TEXT NOT NULL,
    span_id      TEXT NOT NULL,
    agent        TEXT NOT NULL,
    tool         TEXT NOT NULL,
    subject      TEXT NOT NULL,
    arguments    TEXT NOT NULL,
    reason       TEXT NOT NULL,
    status       TEXT NOT NULL,
    requested_at INTEGER NOT NULL,
    decided_at   INTEGER,
    decided_by   TEXT NOT NULL,
    for_run      INTEGER NOT NULL,
    note         TEXT NOT NULL
);
-- The badge counts pending rows and the pages list them: both read this.
CREATE INDEX approvals_by_status ON approvals (status, requested_at);
CREATE INDEX approvals_by_run    ON approvals (run_id, requested_at);
