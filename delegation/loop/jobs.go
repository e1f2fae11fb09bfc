package loop

import (
	"slices"

	"github.com/agentry/agentry/delegation/sched"
	"github.com/agentry/agentry/trace/semconv"
)

// Background agents (dispatch_agent, delegate with background: true, a
// parallel_streaming turn's delegate calls) run while the loop goes on.
// Each waits in line before it runs: a dispatch first for the agents it
// depends on, then every one for a place among its turn's agents
// (limits.turn_agents), then for one under the agent's max_concurrent
// (shared with its batches), then for a run-wide slot. A delegate call is
// checked before it waits and records its waits on its span, as a batch
// call does; a dispatch records none.

// addJobs registers the agents a turn started (every one before the first
// starts, so a dispatch may depend on a later one of the same turn), then
// starts them in order.
func (m *Machine) addJobs(jobs []Job) {
	base := len(m.jobs)
	for _, j := range jobs {
		it := &Item{Kind: Dispatch, Index: j.Index, Call: j.Call, Job: j, Turn: m.turn, Started: m.now, stream: j.Stream}
		if j.Background {
			it.Kind = Background
			it.Args, it.ArgErr = ParseDelegate(j.Call)
			it.Conv = slices.Clone(m.conv)
		}
		m.jobs = append(m.jobs, it)
	}
	for k := base; k < len(m.jobs); k++ {
		it := m.jobs[k]
		for _, id := range it.Job.DependsOn {
			if j := m.jobNumber(id); j >= 0 {
				it.wants = append(it.wants, j)
			}
		}
	}
	for k := base; k < len(m.jobs); k++ {
		if it := m.jobs[k]; it.Kind == Dispatch {
			it.st = stDeps
			m.depsEnded(^k)
		} else {
			it.st = stChecking
			m.emit(Action{Kind: ActCheck, Item: ^k})
		}
	}
}

// jobNumber is the number of the agent with that id, -1 when none has it.
func (m *Machine) jobNumber(id string) int {
	for j, it := range m.jobs {
		if it.Job.ID == id {
			return j
		}
	}
	return -1
}

// depsEnded starts dispatch id once the agents it depends on have ended:
// a failed one skips it (a skipped one passes its own reason on, so the
// root cause shows); else it reserves its agent under the run's
// max_agents_per_run (ActCheck).
func (m *Machine) depsEnded(id int) {
	it := m.Item(id)
	deps := make([]Dependency, 0, len(it.wants))
	for _, w := range it.wants {
		dep := m.jobs[w]
		if !dep.done {
			return
		}
		deps = append(deps, Dependency{ID: dep.Job.ID, Agent: dep.Job.Agent, Outcome: dep.out})
	}
	it.Deps = deps
	if o, skip := skipDispatch(deps); skip {
		m.finishItem(id, o)
		return
	}
	it.st = stChecking
	m.emit(Action{Kind: ActCheck, Item: id})
}

// onChecked puts a checked item in its lines: a batch call in the agent's,
// a background agent in its turn's and then the agent's. Nothing starts
// once the run stopped or, for a background agent, its invocation ended.
func (m *Machine) onChecked(id int) {
	it := m.Item(id)
	if it.st != stChecking {
		return
	}
	if m.stop != nil || id < 0 && m.ph == phEnding {
		m.finishItem(id, m.ended())
		return
	}
	if id >= 0 {
		m.joinAgentLine(id)
		return
	}
	l := m.turnLine(it.Turn)
	if l.Take(id) {
		it.inTurn = true
		m.joinAgentLine(id)
		return
	}
	it.st = stTurnLine
	m.queued(id, it, semconv.CapTurn, l.Limit())
}

func (m *Machine) turnLine(turn int) *sched.Line {
	if m.turnLines == nil {
		m.turnLines = map[int]*sched.Line{}
	}
	l := m.turnLines[turn]
	if l == nil {
		n := sched.NewLine(m.spec.TurnAgents)
		l = &n
		m.turnLines[turn] = l
	}
	return l
}

func (m *Machine) joinAgentLine(id int) {
	it := m.Item(id)
	if m.agentLine.Take(id) {
		it.agent = true
		if it.lineFull { // the line freed while the call was checked: it waited all the same, on either engine
			m.queued(id, it, semconv.CapAgent, m.agentLine.Limit())
			m.admitted(id, it, semconv.CapAgent, m.agentLine.Limit())
		}
		m.takeSlot(id, it)
		return
	}
	it.st = stAgentLine
	m.queued(id, it, semconv.CapAgent, m.agentLine.Limit())
}

func (m *Machine) takeSlot(id int, it *Item) {
	it.st = stSlot
	m.emit(Action{Kind: ActSlot, Item: id, Events: it.Kind != Dispatch})
}

// queued records on a delegate call's span that it joined a line; a
// dispatch records none.
func (m *Machine) queued(id int, it *Item, capName string, limit int) {
	if it.Kind != Dispatch {
		m.emit(Action{Kind: ActQueued, Item: id, Cap: capName, Limit: limit})
	}
}

func (m *Machine) admitted(id int, it *Item, capName string, limit int) {
	if it.Kind != Dispatch {
		m.emit(Action{Kind: ActAdmitted, Item: id, Cap: capName, Limit: limit})
	}
}

// onSlot runs an item that holds its run-wide slot; the batch goes on to
// its next call unless it runs one at a time.
func (m *Machine) onSlot(id int) {
	it := m.Item(id)
	if it.st != stSlot {
		return
	}
	it.st = stRunning
	m.emit(Action{Kind: ActRun, Item: id})
	if id >= 0 {
		m.running++
		if !m.seq {
			m.cursor = -1
			m.pump()
		}
	}
}

// onDone records how an item ended, hands its places in line on, and lets
// what waited for it go on.
func (m *Machine) onDone(ev Event) {
	id := ev.Item
	it := m.Item(id)
	if it.done {
		return
	}
	wasRunning := it.st == stRunning
	it.done, it.st, it.out, it.text, it.calls, it.ended = true, stDone, ev.Outcome, ev.Text, ev.Calls, m.now
	m.release(it)
	if id >= 0 {
		m.results[it.Index] = ev.Text
		m.batchDone(id, wasRunning)
	} else {
		m.jobDone(^id)
	}
	m.maybeEnd()
}

// release frees an ended item's places in the agent's and its turn's
// lines; the next in each is admitted.
func (m *Machine) release(it *Item) {
	if it.agent {
		it.agent = false
		if next, ok := m.agentLine.Release(); ok {
			n := m.Item(next)
			n.agent = true
			m.admitted(next, n, semconv.CapAgent, m.agentLine.Limit())
			m.takeSlot(next, n)
		}
	}
	if it.inTurn {
		it.inTurn = false
		l := m.turnLine(it.Turn)
		if next, ok := l.Release(); ok {
			n := m.Item(next)
			n.inTurn = true
			m.admitted(next, n, semconv.CapTurn, l.Limit())
			m.joinAgentLine(next)
		}
	}
}

// jobDone starts the dispatches that waited for agent j and ends a wait
// that it was the last of.
func (m *Machine) jobDone(j int) {
	for k, it := range m.jobs {
		if it.st == stDeps && slices.Contains(it.wants, j) {
			m.depsEnded(^k)
		}
	}
	m.checkWait()
}

// stopJob ends a background agent that has not begun to run: the run
// stopped or its invocation ended. One being checked, given a slot or
// running ends as its driver's context ends (ActStopJobs).
func (m *Machine) stopJob(id int, it *Item) {
	switch it.st {
	case stDeps:
	case stTurnLine:
		m.turnLine(it.Turn).Leave(id)
	case stAgentLine:
		m.agentLine.Leave(id)
	default:
		return
	}
	m.finishItem(id, m.ended())
}

// finishItem ends an item that will not run with o.
func (m *Machine) finishItem(id int, o Outcome) {
	m.Item(id).st = stEnding
	m.emit(Action{Kind: ActFinish, Item: id, Outcome: o})
}

// uncollected are the agents whose results the model has not had.
func (m *Machine) uncollected() []int {
	var out []int
	for j, it := range m.jobs {
		if !it.taken {
			out = append(out, j)
		}
	}
	return out
}

// streamed are the parallel_streaming agents whose results the model has
// not had.
func (m *Machine) streamed() []int {
	var out []int
	for j, it := range m.jobs {
		if it.stream && !it.taken {
			out = append(out, j)
		}
	}
	return out
}

func (m *Machine) anyDone(jobs []int) bool {
	for _, j := range jobs {
		if m.jobs[j].done {
			return true
		}
	}
	return false
}

// report is an agent's get_agent_results entry as it stands.
func (m *Machine) report(it *Item) Report {
	if !it.done {
		return Report{AgentID: it.Job.ID, Agent: it.Job.Agent, Status: ReportRunning, DurationMS: m.now.Sub(it.Started).Milliseconds()}
	}
	return Report{AgentID: it.Job.ID, Agent: it.Job.Agent, Status: ReportStatus(it.out.Status), Result: it.out.Result,
		ToolCallsUsed: it.calls, DurationMS: it.ended.Sub(it.Started).Milliseconds(), Error: it.out.Error}
}

// pending reports the agents whose results the model has not had, as they
// stand, for a limit's report.
func (m *Machine) pending() []Report {
	var out []Report
	for _, it := range m.jobs {
		if !it.taken {
			out = append(out, m.report(it))
		}
	}
	return out
}
