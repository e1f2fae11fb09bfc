package control

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/trace/approval"
)

// The approval gate (DESIGN §10). A call whose permission verdict is ask
// waits on its own span, in its own branch, until it is answered: first by
// the Asker of this process (--approve, --deny-asks, a terminal prompt),
// and all along by whoever answers the pending row in the approval store
// (the web UI, `agentry approvals`, from any process on the same
// database). Only a decision sealed with the request's secret, which this
// process keeps, counts: one written into the row around agentry (a
// command that reached the database) is ignored (DESIGN §12). No answer
// within the approval timeout is a denial with that reason; a cancelled
// run ends the wait and denies the row. An approval "for this run" lets
// every later call of the same subject (the tool, or the delegation
// target) in the run through without asking.

// DefaultApprovalTimeout is how long a call waits for an answer when the
// configuration says nothing.
const DefaultApprovalTimeout = 10 * time.Minute

// defaultApprovalPoll is how often a waiting call reads its row.
const defaultApprovalPoll = 200 * time.Millisecond

// Asker answers ask verdicts inside the process that runs the agents. ok is
// false when it leaves the answer to others (the approval store). Answer may
// block, a terminal prompt does, but must return soon after ctx ends: the
// call stops waiting for it then (answered elsewhere, timed out, cancelled).
// It must be safe for concurrent use.
type Asker interface {
	Answer(ctx context.Context, a approval.Approval) (ans approval.Answer, ok bool)
}

// ErrApprovalCancelled is why a wait ended with the run.
var ErrApprovalCancelled = errors.New("the run ended while the call waited for approval")

// errUnsealed is why a stored decision was not taken: it does not carry
// the seal of the request's secret, so agentry did not write it.
var errUnsealed = errors.New("the stored decision was not written by agentry (its seal does not match the request)")

// Wait is how a call waits in-process for the answer to approval a: the
// Asker's (nil: none), or whatever the store's row says first (a nil store
// keeps the row in memory, for the Asker alone), or the timeout's (0:
// DefaultApprovalTimeout), or its run's end (ctx). It reads the row every
// poll (0: 200ms); now is the clock of its answers. The approval it returns
// is decided; err is set when no person answered (timeout, cancel, a store
// that failed). Only a decision sealed with a's secret counts: one written
// into the row around agentry is not (DESIGN §12).
func Wait(ctx context.Context, a approval.Approval, store approval.Store, asker Asker, timeout, poll time.Duration, now func() time.Time) (approval.Approval, error) {
	if timeout <= 0 {
		timeout = DefaultApprovalTimeout
	}
	if store == nil {
		store = approval.NewMemory() // this process alone answers
	}
	if err := store.RequestApproval(ctx, a); err != nil {
		return a.Decided(approval.Answer{By: "agentry", Note: "the request could not be recorded: " + err.Error(), At: now()}), err
	}
	waitCtx, stop := context.WithCancel(ctx)
	defer stop()
	answered := make(chan approval.Answer, 1)
	if asker != nil {
		go func() {
			if ans, ok := asker.Answer(waitCtx, a); ok {
				answered <- ans
			}
		}()
	}
	if poll <= 0 {
		poll = defaultApprovalPoll
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	decide := func(ans approval.Answer, err error) (approval.Approval, error) {
		got, derr := store.DecideApproval(context.WithoutCancel(ctx), a.ID, ans)
		switch {
		case errors.Is(derr, approval.ErrDecided) && a.Confirms(got):
			return got, nil // someone answered first: theirs stands
		case errors.Is(derr, approval.ErrDecided):
			derr = errUnsealed
		}
		if derr != nil {
			return a.Decided(ans), errors.Join(err, derr)
		}
		return got, err
	}
	for {
		select {
		case ans := <-answered:
			return decide(ans, nil)
		case <-deadline.C:
			return decide(TimedOut(timeout, now()), errors.New("approval timed out"))
		case <-ctx.Done():
			return decide(Cancelled(now()), ErrApprovalCancelled)
		case <-tick.C:
			// Only a decision sealed with this request's secret is an
			// answer: one written around agentry is not (DESIGN §12).
			got, err := store.Approval(ctx, a.ID)
			if err == nil && got.Status != approval.Pending && a.Confirms(got) {
				return got, nil
			}
		}
	}
}

// Subject is what an approval for this run of a call of toolName, asked
// for by dec, covers: the tool, or for a command pattern the pattern
// itself, so approving one `git push` for the run does not approve every
// shell command.
func Subject(toolName string, dec permissions.Decision) string {
	if _, _, ok := permissions.SplitPattern(dec.Pattern); ok {
		return dec.Pattern
	}
	return toolName
}

// AskerFunc adapts a function to Asker.
type AskerFunc func(ctx context.Context, a approval.Approval) (approval.Answer, bool)

// Answer calls f.
func (f AskerFunc) Answer(ctx context.Context, a approval.Approval) (approval.Answer, bool) {
	return f(ctx, a)
}

// Asked is what an engine that waits durably found when it asked about a
// call: nothing to ask, a subject approved earlier for the run (Earlier),
// or a pending request to wait for.
type Asked struct {
	Approval *approval.Approval // nil: the call needs no approval
	Earlier  bool               // Approval is an earlier approval for this run of the same subject
	Timeout  time.Duration      // approval_timeout
}

// TimedOut is the answer of an approval nobody answered within timeout.
func TimedOut(timeout time.Duration, at time.Time) approval.Answer {
	return approval.Answer{By: "timeout", Note: fmt.Sprintf("no answer within approval_timeout (%s)", timeout), At: at}
}

// Cancelled is the answer of an approval whose run ended while it waited.
func Cancelled(at time.Time) approval.Answer {
	return approval.Answer{By: "agentry", Note: ErrApprovalCancelled.Error(), At: at}
}
