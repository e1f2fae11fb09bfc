-- What a feature adds: a table of every column type, an index, and a
-- part for one database only.
CREATE TABLE IF NOT EXISTS example_versions (
    pk       {{.AutoKey}},
    agent    {{.ID}} NOT NULL,
    version  {{.Int}} NOT NULL,
    body     {{.Text}} NOT NULL,
    saved_at {{.BigInt}} NOT NULL,
    current  {{.Bool}} NOT NULL,
    score    {{.Float}},
    UNIQUE (agent, version)
);
CREATE INDEX IF NOT EXISTS example_versions_by_time ON example_versions (saved_at);
{{if .Postgres}}COMMENT ON TABLE example_versions IS 'an example';{{end}}
ALTER TABLE example_versions {{.AddColumn}} note {{.Text}};
