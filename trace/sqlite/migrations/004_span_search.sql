-- Find within a run: the words of each span's task and result, in an FTS5
-- index keyed by spans.pk. It is filled per run on the run's first search
-- (span_search_runs holds how far, as a span_seq value) and topped up with
-- the spans written since on later ones, so ingest pays nothing for the many
-- runs nobody searches. Contentless: the text already lives in spans.
CREATE VIRTUAL TABLE span_text USING fts5(task, result, content='', contentless_delete=1);
CREATE TABLE span_search_runs (
    run_key INTEGER PRIMARY KEY,
    seq     INTEGER NOT NULL
);
