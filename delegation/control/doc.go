// Package control is what lets a person and a purse keep a run in hand:
// budgets (tokens, priced USD and wall clock over a run's tree, and the
// partial-progress report of a run one stopped), approvals (a call whose
// verdict is ask waits for a person's answer), and the hooks and prices
// the runtime calls out to. The rules and words here are shared by both
// engines: the in-process runtime (package delegation) and the Temporal
// engine (delegation/temporal), which keeps a run's budget in its root
// workflow's ledger.
package control
