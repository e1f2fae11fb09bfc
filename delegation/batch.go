package delegation

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// runBatch runs one turn's delegate calls (at idxs of calls) per the agent's
// execution mode and writes each result into results. While the batch runs
// the agent gives up its run-wide slot, so waiting parents never starve
// their own children of the cap.
func (inv *invocation) runBatch(ctx context.Context, calls []model.ToolCall, idxs []int, results []string) {
	ds := make([]*delegation, len(idxs))
	for i, idx := range idxs {
		ds[i] = inv.newDelegation(idx, calls[idx])
	}
	if inv.slot {
		inv.rn.global.release()
		inv.slot = false
	}
	exec := inv.batchMode(ds)
	s := &scheduler{inv: inv, sequential: exec.mode == registry.Sequential}
	s.plan(ds)
	for _, d := range s.ready {
		inv.begin(d) // the calls that can start are all queued from now
	}
	s.loop(ctx)
	for _, d := range ds {
		results[d.idx] = d.out
	}
	if err := inv.rn.global.acquire(ctx); err == nil {
		inv.slot = true
	}
}

// scheduler runs a batch as a DAG: a call starts once its depends_on calls
// have finished; ready calls are admitted in call order.
type scheduler struct {
	inv        *invocation
	sequential bool
	ready      []*delegation
	done       chan *delegation
	running    int
}

// plan links dependencies, finishes the calls whose ids or dependencies are
// invalid or cyclic, and queues the calls that can start at once.
func (s *scheduler) plan(ds []*delegation) {
	early := link(ds)
	for _, d := range ds {
		if d.argErr == nil && d.pending == 0 {
			s.ready = append(s.ready, d)
		}
	}
	s.done = make(chan *delegation, len(ds))
	for _, d := range early {
		s.inv.begin(d)
		s.inv.refuse(d, trace.StatusError, RefusedArguments, d.argErr.Error(), nil)
		s.complete(d)
	}
}

// link sets each call's dependencies and returns, in call order, the calls
// whose ids or dependencies are invalid or cyclic (their argErr says why).
func link(ds []*delegation) (early []*delegation) {
	byID := map[string]*delegation{}
	for _, d := range ds {
		if id := d.args.ID; id != "" && d.argErr == nil {
			if _, dup := byID[id]; dup {
				d.argErr = fmt.Errorf("id %q is used by another call in this turn", id)
				continue
			}
			byID[id] = d
		}
	}
	for _, d := range ds {
		for _, id := range d.args.DependsOn {
			dep, ok := byID[id]
			if !ok && d.argErr == nil {
				d.argErr = fmt.Errorf("depends_on names %q, which no call in this turn has as id", id)
			}
			if ok && dep != d {
				d.deps = append(d.deps, dep)
				dep.after = append(dep.after, d)
				d.pending++
			} else if ok && d.argErr == nil {
				d.argErr = fmt.Errorf("call %q depends on itself", id)
			}
		}
	}
	for _, d := range ds {
		if d.argErr == nil {
			if cyc := cycle(d); cyc != "" {
				d.argErr = fmt.Errorf("dependency cycle rejected: %s", cyc)
			}
		}
		if d.argErr != nil {
			early = append(early, d)
		}
	}
	return early
}

// Planned is one delegate call of a batch as PlanBatch links it.
type Planned struct {
	Deps   []int  // indexes of the calls it waits for
	ArgErr string // why it is refused before it starts ("" = it may start)
}

// PlanBatch links one turn's delegate calls as the in-process batch does
// (ids, depends_on, cycles) without running anything, for an engine that
// schedules the batch itself. It is pure: the same calls give the same plan.
func PlanBatch(calls []model.ToolCall) []Planned {
	ds := make([]*delegation, len(calls))
	at := make(map[*delegation]int, len(calls))
	for i, c := range calls {
		ds[i] = (*invocation)(nil).newDelegation(i, c)
		at[ds[i]] = i
	}
	link(ds)
	out := make([]Planned, len(ds))
	for i, d := range ds {
		if d.argErr != nil {
			out[i].ArgErr = d.argErr.Error()
		}
		for _, dep := range d.deps {
			out[i].Deps = append(out[i].Deps, at[dep])
		}
	}
	return out
}

// cycle returns "a → b → a" (a depends on b, which depends on a) when d
// lies on a dependency cycle, else "".
func cycle(d *delegation) string {
	seen := map[*delegation]bool{}
	var find func(n *delegation) []string
	find = func(n *delegation) []string {
		for _, dep := range n.deps {
			if dep == d {
				return []string{d.args.ID}
			}
			if !seen[dep] {
				seen[dep] = true
				if p := find(dep); p != nil {
					return append([]string{dep.args.ID}, p...)
				}
			}
		}
		return nil
	}
	p := find(d)
	if p == nil {
		return ""
	}
	return strings.Join(append([]string{d.args.ID}, p...), " → ")
}

// complete releases the calls waiting on d.
func (s *scheduler) complete(d *delegation) {
	for _, a := range d.after {
		a.pending--
		if a.pending == 0 && !a.done {
			s.ready = append(s.ready, a)
		}
	}
}

func (s *scheduler) loop(ctx context.Context) {
	inv := s.inv
	for {
		for len(s.ready) > 0 {
			d := s.ready[0]
			s.ready = s.ready[1:]
			if d.done {
				continue
			}
			if reason := failedDependency(d); reason != "" {
				inv.begin(d)
				inv.refuse(d, trace.StatusSkipped, RefusedDependency, reason, nil)
				s.complete(d)
				continue
			}
			if !inv.prepare(d) || !inv.admit(ctx, d) {
				s.complete(d)
				continue
			}
			// Run it on this goroutine when nothing else could run
			// meanwhile: sequential mode, or the one ready call of a batch
			// with nothing running (every other call waits on it). That
			// saves a goroutine hand-off per delegation, which is most of
			// a lone delegation's latency on a busy machine.
			if s.sequential || (s.running == 0 && len(s.ready) == 0) {
				inv.runChildSafely(ctx, d)
				s.complete(d)
				continue
			}
			s.running++
			go func() {
				defer func() { s.done <- d }()
				inv.runChildSafely(ctx, d)
			}()
		}
		if s.running == 0 {
			return
		}
		d := <-s.done
		s.running--
		s.complete(d)
	}
}

func failedDependency(d *delegation) string {
	for _, dep := range d.deps {
		if dep.res.Status != trace.StatusOK {
			name := dep.args.ID
			return fmt.Sprintf("skipped: dependency %q (%s) ended %s: %s", name, dep.args.Agent, dep.res.Status, dep.res.Error)
		}
	}
	return ""
}
