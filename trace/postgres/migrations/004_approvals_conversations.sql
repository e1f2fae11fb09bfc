-- Approvals: calls whose permission verdict was ask, waiting for (or given)
-- a person's answer. Any process on the database may answer one; the first
-- answer wins (an UPDATE guarded by status = 'pending'). Times are Unix
-- nanoseconds; decided_at is NULL while pending.
CREATE TABLE IF NOT EXISTS approvals (
    id           TEXT COLLATE "C" PRIMARY KEY,
    run_id       TEXT COLLATE "C" NOT NULL,
    span_id      TEXT NOT NULL,
    agent        TEXT NOT NULL,
    tool         TEXT NOT NULL,
    subject      TEXT NOT NULL,
    arguments    TEXT NOT NULL,
    reason       TEXT NOT NULL,
    status       TEXT NOT NULL,
    requested_at BIGINT NOT NULL,
    decided_at   BIGINT,
    decided_by   TEXT NOT NULL,
    for_run      BOOLEAN NOT NULL,
    note         TEXT NOT NULL
);
-- The badge counts pending rows and the pages list them: both read this.
CREATE INDEX IF NOT EXISTS approvals_by_status ON approvals (status, requested_at);
CREATE INDEX IF NOT EXISTS approvals_by_run    ON approvals (run_id, requested_at);

-- Conversations (agentry chat, run --continue, the run page's reply box):
-- which runs belong to which conversation, in order, and the root agent's
-- messages, so a follow-up starts from them. Sub-agents' messages stay in
-- the spans. tool_calls is the calls' JSON as written, NULL for none.
CREATE TABLE IF NOT EXISTS conversation_runs (
    run_id          TEXT COLLATE "C" PRIMARY KEY,
    conversation_id TEXT COLLATE "C" NOT NULL,
    seq             INTEGER NOT NULL,
    UNIQUE (conversation_id, seq)
);

CREATE TABLE IF NOT EXISTS conversation_messages (
    conversation_id TEXT COLLATE "C" NOT NULL,
    seq             INTEGER NOT NULL,
    run_id          TEXT COLLATE "C" NOT NULL,
    role            TEXT NOT NULL,
    content         TEXT NOT NULL,
    tool_calls      TEXT,
    tool_call_id    TEXT NOT NULL,
    PRIMARY KEY (conversation_id, seq)
);
