-- Conversations (agentry chat, run --continue, the run page's reply box):
-- which runs belong to which conversation, in order, and the root agent's
-- messages, so a follow-up starts from them. Sub-agents' messages stay in
-- the spans, out of the conversation's context (seed 001 §12).
CREATE TABLE conversation_runs (
    run_id          TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    seq             INTEGER NOT NULL
);
CREATE INDEX conversation_runs_by_conversation ON conversation_runs (conversation_id, seq);

CREATE TABLE conversation_messages (
    conversation_id TEXT NOT NULL,
    seq             INTEGER NOT NULL,
    run_id          TEXT NOT NULL,
    role            TEXT NOT NULL,
    content         TEXT NOT NULL,
    tool_calls      TEXT,
    tool_call_id    TEXT NOT NULL,
    PRIMARY KEY (conversation_id, seq)
);
