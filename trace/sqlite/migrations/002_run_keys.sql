-- Spans refer to their run by a small integer key instead of the 32-character
-- run ID: the ID appeared in the row and in both span indexes, about 90 bytes
-- per span, and text comparisons were a large share of ingest time.
CREATE TABLE run_keys (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE
);
INSERT INTO run_keys (id) SELECT id FROM runs UNION SELECT run_id FROM spans;

CREATE TABLE spans_new (
    pk            INTEGER PRIMARY KEY,
    run_key       INTEGER NOT NULL,
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
    UNIQUE (run_key, id)
);
INSERT INTO spans_new
SELECT s.pk, k.pk, s.id, s.parent_id, s.kind, s.name, s.agent, s.depth, s.status, s.started_at,
       s.ended_at, s.input_tokens, s.output_tokens, s.error, s.attributes, s.seq
FROM spans s JOIN run_keys k ON k.id = s.run_id;
DROP TABLE spans;
ALTER TABLE spans_new RENAME TO spans;
CREATE INDEX spans_by_seq ON spans (run_key, seq);
