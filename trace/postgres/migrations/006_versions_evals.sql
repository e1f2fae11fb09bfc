-- Versions of agent, workflow and skill files (trace.VersionStore,
-- docs/versions.md): pk is the order they were added, which is the order
-- they are listed; a deletion has hash '' and no content. Times are Unix
-- nanoseconds.
CREATE TABLE IF NOT EXISTS versions (
    pk      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind    TEXT COLLATE "C" NOT NULL,
    name    TEXT COLLATE "C" NOT NULL,
    path    TEXT NOT NULL,
    hash    TEXT COLLATE "C" NOT NULL,
    time    BIGINT NOT NULL,
    source  TEXT NOT NULL,
    summary TEXT NOT NULL,
    deleted BOOLEAN NOT NULL,
    content BYTEA NOT NULL
);
CREATE INDEX IF NOT EXISTS versions_by_name ON versions (kind, name, pk);

-- Evals (trace.EvalStore): one row per `agentry eval`, its cases in
-- eval_cases in the order they were stored.
CREATE TABLE IF NOT EXISTS evals (
    id         TEXT COLLATE "C" PRIMARY KEY,
    suite      TEXT COLLATE "C" NOT NULL,
    target     TEXT NOT NULL,
    kind       TEXT NOT NULL,
    version    TEXT NOT NULL,
    label      TEXT NOT NULL,
    versions   JSONB NOT NULL,
    started_at BIGINT NOT NULL,
    ended_at   BIGINT NOT NULL,
    passed     INTEGER NOT NULL,
    failed     INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS evals_by_start ON evals (started_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS evals_by_suite ON evals (suite, started_at DESC, id DESC);

CREATE TABLE IF NOT EXISTS eval_cases (
    eval_id       TEXT COLLATE "C" NOT NULL REFERENCES evals (id),
    seq           INTEGER NOT NULL,
    name          TEXT NOT NULL,
    run_id        TEXT COLLATE "C" NOT NULL,
    passed        BOOLEAN NOT NULL,
    failures      JSONB NOT NULL,
    checks        JSONB NOT NULL,
    output        TEXT NOT NULL,
    status        TEXT NOT NULL,
    input_tokens  BIGINT NOT NULL,
    output_tokens BIGINT NOT NULL,
    cost_usd      DOUBLE PRECISION NOT NULL,
    duration_ns   BIGINT NOT NULL,
    PRIMARY KEY (eval_id, seq)
);
CREATE INDEX IF NOT EXISTS eval_cases_by_run ON eval_cases (run_id) WHERE run_id <> '';
