// Package progress turns a run's spans into the progress lines a person
// reads while it goes: "▶ analyst started: …", "✓ analyst ok in 1.2s", a
// refused delegation and why, a call waiting for a concurrency slot or
// answered by a person. `agentry run` prints them as the runtime records
// spans; the MCP server (web/mcp) sends the same lines as progress
// notifications from the spans it reads back from the trace store, so the
// two never say different things about one run.
package progress
