-- Versions of agent, workflow and skill files (trace.VersionStore,
-- docs/versions.md): pk is the order they were added, which is the order
-- they are listed; a deletion has hash '' and no content. Times are Unix
-- nanoseconds.
CREATE TABLE versions (
    pk      INTEGER PRIMARY KEY,
    kind    TEXT NOT NULL,
    name    TEXT NOT NULL,
    path    TEXT NOT NULL,
    hash    TEXT NOT NULL,
    time    INTEGER NOT NULL,
    source  TEXT NOT NULL,
    summary TEXT NOT NULL,
    deleted INTEGER NOT NULL,
    content BLOB NOT NULL
);
CREATE INDEX versions_by_name ON versions (kind, name, pk);

-- Evals (trace.EvalStore): one row per `agentry eval`, its cases in
-- eval_cases in the order they were stored. versions, failures and checks
-- are JSON.
CREATE TABLE evals (
    id         TEXT PRIMARY KEY,
    suite      TEXT NOT NULL,
    target     TEXT NOT NULL,
    kind       TEXT NOT NULL,
    version    TEXT NOT NULL,
    label      TEXT NOT NULL,
    versions   TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    ended_at   INTEGER NOT NULL,
    passed     INTEGER NOT NULL,
    failed     INTEGER NOT NULL
);
CREATE INDEX evals_by_start ON evals (started_at DESC, id DESC);
CREATE INDEX evals_by_suite ON evals (suite, started_at DESC, id DESC);

CREATE TABLE eval_cases (
    eval_id       TEXT NOT NULL REFERENCES evals (id),
    seq           INTEGER NOT NULL,
    name          TEXT NOT NULL,
    run_id        TEXT NOT NULL,
    passed        INTEGER NOT NULL,
    failures      TEXT NOT NULL,
    checks        TEXT NOT NULL,
    output        TEXT NOT NULL,
    status        TEXT NOT NULL,
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cost_usd      REAL NOT NULL,
    duration_ns   INTEGER NOT NULL,
    PRIMARY KEY (eval_id, seq)
);
CREATE INDEX eval_cases_by_run ON eval_cases (run_id) WHERE run_id != '';
