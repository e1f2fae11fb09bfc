// Package answer answers the calls a run asks a person about
// (docs/approvals.md) from the command line: the terminal's questions,
// `agentry run --approve PATTERN` and `--deny-asks` (Asker), and, for runs
// on Temporal, the relay that carries those answers and the web UI's to
// the waiting workflow (Relay, Signal, Notify). Deciding which calls ask
// is the runtime's; keeping them is the trace store's.
package answer
