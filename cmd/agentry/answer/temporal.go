package answer

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/trace/approval"
)

// On Temporal the calls that ask wait in the workers, but the person who
// answers is here: `agentry run`'s terminal, --approve and --deny-asks.
// Relay watches the run's pending approvals in the trace store, asks
// asker about each one, writes its answer to the store (where the first
// answer wins, so an answer from the web UI or `agentry approvals` stands)
// and signals the waiting workflow to read it now. It returns when ctx
// ends.
func Relay(ctx context.Context, eng *temporal.Engine, store approval.Store, runID string, asker control.Asker, logger *slog.Logger) {
	asked := map[string]context.CancelFunc{}
	defer func() {
		for _, stop := range asked {
			stop()
		}
	}()
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		list, err := store.Approvals(ctx, approval.Filter{RunID: runID, Status: approval.Pending})
		if err != nil {
			continue
		}
		pending := map[string]bool{}
		for _, a := range list {
			pending[a.ID] = true
			if asked[a.ID] != nil {
				continue
			}
			actx, stop := context.WithCancel(ctx)
			asked[a.ID] = stop
			go func() {
				ans, ok := asker.Answer(actx, a)
				if !ok || actx.Err() != nil {
					return
				}
				got, err := store.DecideApproval(context.WithoutCancel(actx), a.ID, ans)
				if err != nil {
					return // answered elsewhere first: theirs stands, and they signalled
				}
				if err := eng.Notify(context.WithoutCancel(actx), got); err != nil {
					logger.Warn("the waiting run reads the answer at its next poll", "approval", got.ID, "error", err)
				}
			}()
		}
		for id, stop := range asked { // answered elsewhere: stop asking (a terminal prompt)
			if !pending[id] {
				stop()
			}
		}
	}
}

// Notify tells a waiting Temporal run that approval a was answered
// (`agentry approvals approve|deny` with engine: temporal). A failure is
// not fatal: the run reads its row on a timer anyway (temporal.MaxApprovalPoll).
func Notify(ctx context.Context, cfg temporal.Config, a approval.Approval) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	eng, err := temporal.Dial(ctx, cfg, nil)
	if err != nil {
		return err
	}
	defer eng.Close()
	return eng.Notify(ctx, a)
}

// signalling is an approval store whose answers also signal the waiting
// Temporal run (serve's approvals pages with engine: temporal), so a run
// reads a web answer at once instead of at its next poll. The Temporal
// client is dialled at the first answer, not at start: serve does not need
// Temporal to be up to serve pages.
type signalling struct {
	approval.Store
	cfg    temporal.Config
	log    *slog.Logger
	mu     sync.Mutex
	engine *temporal.Engine
}

// Signal wraps store so that each answer also signals the run on Temporal;
// close releases the client. A nil store stays nil.
func Signal(cfg temporal.Config, store approval.Store, log *slog.Logger) (_ approval.Store, close func()) {
	if store == nil {
		return nil, func() {}
	}
	s := &signalling{Store: store, cfg: cfg, log: log}
	return s, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.engine != nil {
			s.engine.Close()
		}
	}
}

// DecideApproval answers in the store, then signals the run.
func (s *signalling) DecideApproval(ctx context.Context, id string, ans approval.Answer) (approval.Approval, error) {
	a, err := s.Store.DecideApproval(ctx, id, ans)
	if err != nil {
		return a, err
	}
	if err := s.notify(ctx, a); err != nil {
		s.log.Warn("could not signal the run on Temporal; it reads the answer at its next poll", "approval", a.ID, "error", err)
	}
	return a, nil
}

func (s *signalling) notify(ctx context.Context, a approval.Approval) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.engine == nil {
		eng, err := temporal.Dial(ctx, s.cfg, nil)
		if err != nil {
			return err
		}
		s.engine = eng
	}
	return s.engine.Notify(ctx, a)
}
