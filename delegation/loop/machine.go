package loop

import (
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/sched"
	"github.com/agentry/agentry/trace"
)

// Machine is one agent invocation's loop: model turn, tool calls, batch,
// background agents, until an answer or a limit. It does no I/O and keeps
// no clock: Start and Step return the actions its driver carries out, and
// the driver reports each one's result back as an Event. The same events
// give the same actions, so the in-process runtime and the Temporal
// engine, its two drivers, run one loop. Not safe for concurrent use: a
// driver steps it from one goroutine (or workflow).
type Machine struct {
	spec Spec
	conv []model.Message
	acts []Action

	ph      phase
	then    phase // what follows EvSlotBack
	turn    int   // the model turn under way, from 0
	attempt int
	used    int // tool calls run so far (max_tool_calls)
	last    string
	stop    *Outcome
	end     Outcome
	now     time.Time

	calls   []model.ToolCall // the turn's calls
	n       int              // how many of them run
	why     string           // why the others do not
	kinds   []callKind
	results []string
	next    int
	stream  bool // the turn's delegate calls stream

	items   []Item // the turn's batch, in call order
	ready   []int  // batch calls ready, in the order they became so
	head    int    // ready[head:] are still to admit
	cursor  int    // the batch call being admitted (-1: none)
	running int
	left    int
	seq     bool // the batch runs one call at a time

	jobs      []*Item
	agentLine sched.Line
	turnLines map[int]*sched.Line
	waiting   []int    // jobs a wait is for
	unknown   []Report // get_agent_results: the ids no agent has
	anyOf     bool     // the wait ends when one of them ends
	stopped   bool     // ActStopJobs was sent
}

type phase uint8

const (
	phNone phase = iota
	phBudget
	phModel
	phSleep
	phCalls
	phTools
	phAsync
	phBatch
	phCollect     // a get_agent_results call's ActCollect under way
	phCollectWait // waiting for the agents it names
	phLate        // a text answer waits for the agents it did not collect
	phLanding     // a streaming turn waits for the next result to land
	phSlotBack    // waiting for EvSlotBack, then ph = then
	phEnding      // waiting for the background agents to stop
	phDone
)

type callKind uint8

const (
	plain   callKind = iota
	async            // answered by ActAsync
	batched          // a delegate call of the batch
	collect          // get_agent_results
)

// New returns the loop of an invocation that starts with conv (its first
// user message last). The machine appends to conv in place.
func New(spec Spec, conv []model.Message) *Machine {
	m := &Machine{}
	m.Reset(spec, conv)
	return m
}

// Reset makes m the loop of a new invocation, as New does, keeping the
// memory it has grown: a driver that runs many short invocations reuses
// one machine.
func (m *Machine) Reset(spec Spec, conv []model.Message) {
	if spec.Attempts <= 0 {
		spec.Attempts = 1
	}
	clear(m.items)
	clear(m.jobs)
	clear(m.results)
	*m = Machine{spec: spec, conv: conv, cursor: -1, agentLine: sched.NewLine(spec.MaxConcurrent),
		acts: m.acts[:0], results: m.results[:0], kinds: m.kinds[:0], items: m.items[:0], ready: m.ready[:0],
		jobs: m.jobs[:0], waiting: m.waiting[:0], unknown: m.unknown[:0]}
}

// Start returns the first actions. The slice, like Step's, is valid until
// the next call.
func (m *Machine) Start() []Action {
	m.acts = m.acts[:0]
	m.beginTurn()
	return m.acts
}

// Step takes one event and returns the actions it leads to.
func (m *Machine) Step(ev Event) []Action {
	m.acts = m.acts[:0]
	if !ev.At.IsZero() {
		m.now = ev.At
	}
	if ev.Stop != nil && m.stop == nil {
		s := *ev.Stop
		m.stop = &s
		m.onStop()
	}
	switch ev.Kind {
	case EvModel:
		m.onModel(ev.Resp)
	case EvModelFailed:
		m.onModelFailed(ev)
	case EvWoke:
		if m.ph == phSleep {
			m.attempt++
			m.askModel()
		}
	case EvBudget:
		m.onBudget(ev.Why)
	case EvGranted:
		if m.ph == phCalls {
			n, why := m.n, m.why
			if ev.N < n {
				n, why = ev.N, ev.Why
			}
			m.execute(n, why)
		}
	case EvTool:
		m.onTool(ev)
	case EvAsync:
		m.onAsync(ev)
	case EvChecked:
		m.onChecked(ev.Item)
	case EvSlot:
		m.onSlot(ev.Item)
	case EvDone:
		m.onDone(ev)
	case EvSlotBack:
		if m.ph == phSlotBack {
			m.ph = phNone
			m.resume()
		}
	}
	return m.acts
}

// Conv is the conversation so far.
func (m *Machine) Conv() []model.Message { return m.conv }

// Calls are the calls of the turn under way.
func (m *Machine) Calls() []model.ToolCall { return m.calls }

// Call is call i of the turn under way.
func (m *Machine) Call(i int) model.ToolCall { return m.calls[i] }

// Item is the item an action names: a batch call of the turn under way
// or a background agent. The pointer is the machine's; read it only.
func (m *Machine) Item(id int) *Item {
	if id < 0 {
		return m.jobs[^id]
	}
	return &m.items[id]
}

// BatchLen is how many delegate calls the turn under way runs as its
// batch: the item ids are 0 to BatchLen()-1.
func (m *Machine) BatchLen() int { return len(m.items) }

// JobIDs are the ids of the background agents this invocation started,
// which a new one may not take.
func (m *Machine) JobIDs() []string {
	ids := make([]string, len(m.jobs))
	for i, j := range m.jobs {
		ids[i] = j.Job.ID
	}
	return ids
}

// Clocked reports whether the next event must carry the driver's clock
// (Event.At): the invocation has background agents, whose reports say how
// long they took.
func (m *Machine) Clocked() bool { return len(m.jobs) > 0 || m.ph == phAsync }

// JobsLive reports whether background agents are under way: their events
// may then come at any time, so a driver must not block on a long call.
func (m *Machine) JobsLive() bool {
	for _, it := range m.jobs {
		if !it.done {
			return true
		}
	}
	return false
}

// Used is how many tool calls the invocation has run.
func (m *Machine) Used() int { return m.used }

func (m *Machine) emit(a Action) { m.acts = append(m.acts, a) }

// onStop ends what waits in a line (nothing starts once the run is
// cancelled or timed out) and stops the waits for background agents.
func (m *Machine) onStop() {
	if m.cursor >= 0 {
		if it := &m.items[m.cursor]; it.st == stAgentLine {
			m.agentLine.Leave(m.cursor)
			m.finishItem(m.cursor, *m.stop)
		}
	}
	for j, it := range m.jobs {
		m.stopJob(^j, it)
	}
	if m.ph == phCollectWait || m.ph == phLate || m.ph == phLanding {
		m.endWait()
	}
}

// finish ends the invocation with o, once its background agents have
// stopped.
func (m *Machine) finish(o Outcome) {
	m.end = o
	m.ph = phEnding
	for j, it := range m.jobs {
		m.stopJob(^j, it)
	}
	m.maybeEnd()
}

// maybeEnd ends the invocation once no background agent runs.
func (m *Machine) maybeEnd() {
	if m.ph != phEnding {
		return
	}
	for _, it := range m.jobs {
		if it.done {
			continue
		}
		if !m.stopped && (it.st == stChecking || it.st == stSlot || it.st == stRunning) {
			m.stopped = true
			m.emit(Action{Kind: ActStopJobs})
		}
		return
	}
	m.ph = phDone
	m.emit(Action{Kind: ActEnd, Outcome: m.end})
}

// ended is how a background agent that never ran ends when it stops
// waiting: with the run's stop, or because its dispatcher ended.
func (m *Machine) ended() Outcome {
	if m.stop != nil {
		return *m.stop
	}
	return Outcome{Status: trace.StatusCancelled, Error: ErrDispatcherEnded.Error()}
}
