// Package trace is the record of what agents did: runs and their spans, shaped
// after the OpenTelemetry GenAI conventions (invoke_agent, chat, execute_tool).
//
// It holds only types and contracts, no infrastructure, so the runtime, the CLI
// and the web UI agree on one shape without importing a database:
//
//   - Run and Span are the data; their JSON form (times RFC 3339 with
//     microseconds, ended_at null while running) is the one every output uses.
//   - Sink is what the runtime writes to as things happen; Recorder is the Sink
//     that batches those calls into a Store without blocking the agents.
//   - Store is the queryable, portable record, one contract with no optional
//     parts: writes, the reads the run page makes on big runs (Skeleton,
//     Span, FindSpans), and the upkeep of a long-lived process
//     (MarkInterrupted, which StartReaper calls in a loop, and Ping).
//     trace/sqlite (the default) and trace/postgres are the real ones,
//     trace/memory the in-process one for tests; trace/tracetest holds the
//     conformance suite every Store passes.
//   - Beside the record, and in packages of their own: trace/semconv is the
//     vocabulary of spans (attribute keys, event names), trace/approval the
//     calls that wait for a person, trace/conversation the runs a
//     conversation is made of. The stores keep all three.
//   - Nothing is lost silently: a Recorder whose store could not take records
//     counts them and says so from Close (ErrDropped, ErrLost), and the
//     caller reports it (agentry run exits non-zero).
//   - Secrets never reach a message: Redact removes URL passwords, tokens in
//     query strings, Authorization headers and API keys. Recorder and Tee
//     apply it to run and span errors; the CLI applies it to the errors it
//     prints and, through RedactAttr, to its logs. It lives here, not in
//     cmd, so every edge uses one definition of what a secret looks like.
//   - CheckID is the shape of an ID a document may bring in on import.
package trace
