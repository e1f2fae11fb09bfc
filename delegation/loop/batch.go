package loop

import (
	"fmt"
	"slices"

	"github.com/agentry/agentry/delegation/sched"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// Kinds of refusal the loop decides itself (the values of a delegation
// span's refused attribute).
const (
	RefusedArguments  = "arguments"  // malformed call, bad context mode, dependency cycle
	RefusedDependency = "dependency" // skipped: a depends_on call did not end ok
)

// startBatch runs the turn's delegate calls as one batch, a DAG: a call
// starts once its depends_on calls have ended, ready calls are checked and
// admitted in call order (under the agent's max_concurrent, then the run's
// cap), and each admitted call runs at once, or after the one before it
// when the batch is sequential. While the batch runs the invocation gives
// its run-wide slot up, so waiting parents never starve their own
// children of the cap.
func (m *Machine) startBatch() {
	// An Item is large (about 800 bytes): grown call by call, a fan-out of
	// 100 allocated and copied two and a half times the batch.
	m.items = slices.Grow(m.items[:0], m.countKind(batched))
	for i, k := range m.kinds {
		if k == batched {
			a, err := ParseDelegate(m.calls[i])
			m.items = append(m.items, Item{Kind: Batch, Index: i, Call: m.calls[i], Args: a, ArgErr: err, Turn: m.turn})
		}
	}
	if len(m.items) == 0 {
		m.startCollect()
		return
	}
	m.ph = phBatch
	m.acts = slices.Grow(m.acts, len(m.items)+2) // a release, an open or refusal per call, an admission
	m.emit(Action{Kind: ActRelease})
	m.seq = chooseExec(m.spec.Execution, m.items).Mode == registry.Sequential
	m.link()
	m.ready, m.head, m.cursor, m.running, m.left = slices.Grow(m.ready[:0], len(m.items)), 0, -1, 0, len(m.items)
	for i := range m.items {
		if it := &m.items[i]; it.ArgErr == "" && it.wait == 0 {
			m.ready = append(m.ready, i)
		}
	}
	for i := range m.items {
		if it := &m.items[i]; it.ArgErr != "" {
			it.st = stEnding
			m.emit(Action{Kind: ActRefuse, Item: i, Refused: RefusedArguments,
				Outcome: Outcome{Status: trace.StatusError, Error: it.ArgErr}})
		}
	}
	for _, i := range m.ready {
		m.emit(Action{Kind: ActOpen, Item: i, Index: m.items[i].Index})
	}
	m.pump()
}

// countKind is how many of the turn's calls are of kind k.
func (m *Machine) countKind(k callKind) int {
	n := 0
	for _, kk := range m.kinds {
		if kk == k {
			n++
		}
	}
	return n
}

// link makes the batch a DAG (sched.Link): each call's dependencies, and
// the refusal of ids and dependencies that are invalid or cyclic.
func (m *Machine) link() {
	var nodes []sched.Node
	for i := range m.items {
		if len(m.items[i].Args.DependsOn) > 0 || m.items[i].Args.ID != "" {
			nodes = make([]sched.Node, len(m.items))
			break
		}
	}
	if nodes == nil { // no ids: no DAG to link
		return
	}
	for i := range m.items {
		it := &m.items[i]
		nodes[i] = sched.Node{ID: it.Args.ID, DependsOn: it.Args.DependsOn, Err: it.ArgErr}
	}
	deps := sched.Link(nodes)
	for i := range m.items {
		it := &m.items[i]
		it.ArgErr, it.on, it.wait = nodes[i].Err, deps[i], len(deps[i])
		for _, d := range deps[i] {
			m.items[d].after = append(m.items[d].after, i)
		}
	}
}

// pump admits the batch's next ready call when none is being admitted:
// one whose dependency failed is skipped; one whose place in the agent's
// line is free is checked and given a run-wide slot at once (ActAdmit);
// another is checked, then joins the line (ActCheck).
func (m *Machine) pump() {
	for m.cursor < 0 && m.head < len(m.ready) {
		i := m.ready[m.head]
		m.head++
		it := &m.items[i]
		if it.st != stNew {
			continue
		}
		m.cursor = i
		if reason := m.failedDependency(it); reason != "" {
			it.st = stEnding
			m.emit(Action{Kind: ActRefuse, Item: i, Refused: RefusedDependency,
				Outcome: Outcome{Status: trace.StatusSkipped, Error: reason}})
			return
		}
		it.Deps = m.dependencies(it)
		if m.stop == nil && m.agentLine.Free() {
			m.agentLine.Take(i)
			it.agent, it.st = true, stSlot
			m.emit(Action{Kind: ActAdmit, Item: i, Events: true})
			return
		}
		it.st, it.lineFull = stChecking, true
		m.emit(Action{Kind: ActCheck, Item: i})
		return
	}
	if m.left == 0 && m.ph == phBatch {
		m.then, m.ph = phBatch, phSlotBack
		m.emit(Action{Kind: ActAcquire})
	}
}

// batchDone records that batch call i ended and readies its dependents.
func (m *Machine) batchDone(i int, wasRunning bool) {
	it := &m.items[i]
	if wasRunning {
		m.running--
	}
	if m.cursor == i {
		m.cursor = -1
	}
	m.left--
	for _, a := range it.after {
		if d := &m.items[a]; d.wait > 0 {
			d.wait--
			if d.wait == 0 && d.st == stNew && d.ArgErr == "" {
				m.ready = append(m.ready, a)
			}
		}
	}
	m.pump()
}

// failedDependency is why a ready call is skipped: a dependency that did
// not end ok ("" when none).
func (m *Machine) failedDependency(it *Item) string {
	for _, d := range it.on {
		dep := &m.items[d]
		if dep.out.Status != trace.StatusOK {
			return fmt.Sprintf("skipped: dependency %q (%s) ended %s: %s", dep.Args.ID, dep.Args.Agent, dep.out.Status, dep.out.Error)
		}
	}
	return ""
}

func (m *Machine) dependencies(it *Item) []Dependency {
	if len(it.on) == 0 {
		return nil
	}
	deps := make([]Dependency, len(it.on))
	for k, d := range it.on {
		dep := &m.items[d]
		deps[k] = Dependency{ID: dep.Args.ID, Agent: dep.Args.Agent, Outcome: dep.out}
	}
	return deps
}

// execRank orders the execution modes from least to most concurrent: a
// parent may ask for a mode up to its file's.
var execRank = map[string]int{registry.Sequential: 0, registry.Parallel: 1, registry.ParallelStreaming: 2}

// chooseExec picks a batch's mode: the file's (parallel when silent), or
// the least concurrent mode the calls ask for when that is within the
// file's. An unknown mode is an argument error of its call.
func chooseExec(file string, items []Item) Exec {
	if _, ok := execRank[file]; !ok {
		file = registry.Parallel
	}
	asked := ""
	for i := range items {
		it := &items[i]
		mode := it.Args.Execution
		if mode == "" || it.ArgErr != "" {
			continue
		}
		if _, ok := execRank[mode]; !ok {
			it.ArgErr = fmt.Sprintf("unknown execution mode %q (sequential, parallel or parallel_streaming)", mode)
			continue
		}
		if asked == "" || execRank[mode] < execRank[asked] {
			asked = mode
		}
	}
	e := Exec{Mode: file}
	switch {
	case asked == "":
	case execRank[asked] <= execRank[file]:
		e.Mode = asked
	default:
		e.Asked = asked
	}
	for i := range items {
		items[i].Exec = e
	}
	return e
}
