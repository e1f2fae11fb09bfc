// Package approvals is the web UI's approvals page family: the list of
// calls waiting for a person's answer (every run, any process on the same
// database) and the Approve / Approve for this run / Deny actions, which
// the run page's "Waiting for approval" section posts to as well.
//
// Handlers are methods of Pages; web/routes.go maps URLs to them. Store is
// the small interface the family needs (approval.Store satisfies it).
// An answer is the store's DecideApproval: the first answer wins, and a
// second one (another tab, the CLI) is told who answered first.
package approvals
