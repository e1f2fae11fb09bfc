-- Runs: one row per top-level agent invocation. Times are Unix nanoseconds;
-- ended_at is NULL while the run has not ended.
CREATE TABLE runs (
    id            TEXT PRIMARY KEY,
    agent         TEXT NOT NULL,
    task          TEXT NOT NULL,
    model         TEXT NOT NULL,
    status        TEXT NOT NULL,
    started_at    INTEGER NOT NULL,
    ended_at      INTEGER,
    result        TEXT NOT NULL,
    error         TEXT NOT NULL,
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    agents        INTEGER NOT NULL,
    -- the process that wrote the run, to tell a live run from an orphan
    owner_host    TEXT NOT NULL,
    owner_pid     INTEGER NOT NULL,
    owner_start   TEXT NOT NULL
);
CREATE INDEX runs_by_start  ON runs (started_at DESC, id DESC);
CREATE INDEX runs_by_agent  ON runs (agent, started_at DESC, id DESC);
CREATE INDEX runs_by_status ON runs (status, started_at DESC, id DESC);

-- Spans: pk keeps insertion order for ties in started_at; seq is the value of
-- the span_seq counter when the span was last written (SpansSince's cursor).
-- There is deliberately no (run_id, started_at) index: reading a run sorts its
-- rows found through the unique index (a few ms for 10k spans), and without
-- that fourth b-tree, ingest is about 20% faster.
CREATE TABLE spans (
    pk            INTEGER PRIMARY KEY,
    run_id        TEXT NOT NULL,
    id            TEXT NOT NULL,
    parent_id     TEXT NOT NULL,
    kind          TEXT NOT NULL,
    name          TEXT NOT NULL,
    agent         TEXT NOT NULL,
    depth         INTEGER NOT NULL,
    status        TEXT NOT NULL,
    started_at    INTEGER NOT NULL,
    ended_at      INTEGER,
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    error         TEXT NOT NULL,
    attributes    TEXT NOT NULL,
    seq           INTEGER NOT NULL,
    UNIQUE (run_id, id)
);
CREATE INDEX spans_by_seq   ON spans (run_id, seq);

CREATE TABLE counters (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
INSERT INTO counters (name, value) VALUES ('span_seq', 0);
