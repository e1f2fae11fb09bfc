-- Runs: one row per top-level agent invocation. Times are Unix nanoseconds,
-- as in trace/sqlite, so nothing is lost to timestamptz's microseconds;
-- ended_at is NULL while the run has not ended. IDs and agent names compare
-- bytewise (COLLATE "C"), the order every other store lists them in.
CREATE TABLE runs (
    id            TEXT COLLATE "C" PRIMARY KEY,
    agent         TEXT COLLATE "C" NOT NULL,
    task          TEXT NOT NULL,
    model         TEXT NOT NULL,
    status        TEXT NOT NULL,
    started_at    BIGINT NOT NULL,
    ended_at      BIGINT,
    result        TEXT NOT NULL,
    error         TEXT NOT NULL,
    input_tokens  BIGINT NOT NULL,
    output_tokens BIGINT NOT NULL,
    agents        INTEGER NOT NULL,
    -- the writer, to tell a live run from an orphan: the advisory lock its
    -- session holds while it lives, and for messages its host and pid
    owner_key     INTEGER NOT NULL,
    owner_host    TEXT NOT NULL,
    owner_pid     INTEGER NOT NULL
);
CREATE INDEX runs_by_start  ON runs (started_at DESC, id DESC);
CREATE INDEX runs_by_agent  ON runs (agent, started_at DESC, id DESC);
CREATE INDEX runs_by_status ON runs (status, started_at DESC, id DESC);

-- run_keys gives every run ID a small key for its spans, and holds the run's
-- change counter: each transaction that writes a run's spans bumps it under
-- the row's lock, so two writers on one run commit their numbers in order
-- and SpansSince's cursor never skips a change committed late.
CREATE TABLE run_keys (
    pk  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id  TEXT COLLATE "C" NOT NULL UNIQUE,
    seq BIGINT NOT NULL DEFAULT 0
);

-- Spans: pk keeps insertion order for ties in started_at (it needs no index:
-- a run's spans are sorted after they are found by run_key); seq is the
-- run's counter when the span was last written. Events are NULL for most spans.
-- Attributes and events are JSON, not JSONB: kept as written, read back
-- without re-encoding, and a tool's output may hold \u0000, which JSONB
-- refuses; queries can still cast to JSONB.
CREATE TABLE spans (
    run_key       BIGINT NOT NULL,
    id            TEXT COLLATE "C" NOT NULL,
    parent_id     TEXT NOT NULL,
    kind          TEXT NOT NULL,
    name          TEXT NOT NULL,
    agent         TEXT COLLATE "C" NOT NULL,
    depth         INTEGER NOT NULL,
    status        TEXT NOT NULL,
    started_at    BIGINT NOT NULL,
    ended_at      BIGINT,
    input_tokens  BIGINT NOT NULL,
    output_tokens BIGINT NOT NULL,
    error         TEXT NOT NULL,
    attributes    JSON NOT NULL,
    events        JSON,
    seq           BIGINT NOT NULL,
    pk            BIGINT GENERATED ALWAYS AS IDENTITY,
    PRIMARY KEY (run_key, id)
);
CREATE INDEX spans_by_seq ON spans (run_key, seq);

-- Owner keys: each open Store takes the next one and holds it as a session
-- advisory lock until it closes or its connection dies.
CREATE SEQUENCE owner_keys AS INTEGER MINVALUE 1 CYCLE;
