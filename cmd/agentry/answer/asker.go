package answer

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/agentry/agentry/delegation/progress"
	"github.com/agentry/agentry/trace/approval"
)

// Asker answers ask verdicts for `agentry run`: --approve patterns, then
// --deny-asks, then a person at the terminal; without any of them the call
// waits for an answer from elsewhere (the web UI, `agentry approvals`),
// which it says on stderr. It implements control.Asker.
type Asker struct {
	approve  []string
	denyAll  bool
	timeout  time.Duration
	stderr   io.Writer
	lines    <-chan string // the terminal's lines; nil without a terminal
	promptMu sync.Mutex    // one question at a time
	// startReading starts the reader of lines, once.
	startReading func()
}

// Options are what an Asker answers by.
type Options struct {
	Approve  []string      // --approve patterns: these calls are approved
	DenyAll  bool          // --deny-asks: every other call is denied
	Timeout  time.Duration // how long an unanswered call waits (told to the user)
	Terminal io.Reader     // the terminal to ask at; nil when stdin is not one
	Stderr   io.Writer     // where questions and notes go
}

// New builds the asker. With a terminal, the first question starts one
// reader of its lines for the rest of the run, so a question answered
// elsewhere leaves no reader behind, and a run that never asks never reads
// the terminal.
func New(o Options) *Asker {
	a := &Asker{approve: o.Approve, denyAll: o.DenyAll, timeout: o.Timeout, stderr: o.Stderr}
	if o.Terminal != nil {
		lines := make(chan string)
		a.lines = lines
		a.startReading = sync.OnceFunc(func() {
			go func() {
				sc := bufio.NewScanner(o.Terminal)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
		})
	}
	return a
}

// Answer implements control.Asker.
func (a *Asker) Answer(ctx context.Context, ap approval.Approval) (approval.Answer, bool) {
	now := time.Now()
	for _, p := range a.approve {
		if Approves(p, ap) {
			return approval.Answer{Approve: true, By: "--approve " + p, At: now}, true
		}
	}
	if a.denyAll {
		return approval.Answer{By: "--deny-asks", Note: "this run denies every call that asks for approval", At: now}, true
	}
	if a.lines == nil {
		a.promptMu.Lock()
		fmt.Fprintf(a.stderr, "⏸ %s wants to call %s %s\n  %s\n  waiting for an answer: `agentry approvals approve %s` (or deny ... --reason TEXT), or the web UI's approvals page; denied after %s\n",
			ap.Agent, ap.Tool, progress.OneLine(ap.Arguments, 200), ap.Reason, ap.ID, a.timeout)
		a.promptMu.Unlock()
		return approval.Answer{}, false
	}
	return a.prompt(ctx, ap)
}

// prompt asks the person at the terminal: y, a (approve for this run) or
// n and a reason.
func (a *Asker) prompt(ctx context.Context, ap approval.Approval) (approval.Answer, bool) {
	a.promptMu.Lock()
	defer a.promptMu.Unlock()
	if ctx.Err() != nil {
		return approval.Answer{}, false
	}
	a.startReading()
	fmt.Fprintf(a.stderr, "\n? %s wants to call %s %s\n  %s\n  approve? [y]es, [a] for the rest of this run, [n]o: ", ap.Agent, ap.Tool, progress.OneLine(ap.Arguments, 300), ap.Reason)
	for {
		line, ok := a.read(ctx)
		if !ok {
			fmt.Fprintln(a.stderr, "(answered elsewhere)")
			return approval.Answer{}, false
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return approval.Answer{Approve: true, By: "terminal", At: time.Now()}, true
		case "a", "all":
			return approval.Answer{Approve: true, ForRun: true, By: "terminal", At: time.Now()}, true
		case "n", "no":
			fmt.Fprint(a.stderr, "  reason (told to the agent): ")
			why, _ := a.read(ctx)
			return approval.Answer{By: "terminal", Note: strings.TrimSpace(why), At: time.Now()}, true
		}
		fmt.Fprint(a.stderr, "  y, a or n: ")
	}
}

// read returns the terminal's next line, or false when ctx ends or the
// terminal closed.
func (a *Asker) read(ctx context.Context) (string, bool) {
	select {
	case line, ok := <-a.lines:
		return line, ok
	case <-ctx.Done():
		return "", false
	}
}
