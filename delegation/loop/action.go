package loop

import (
	"time"

	"github.com/agentry/agentry/delegation/model"
)

// ActionKind says what an Action asks of the driver. Actions marked
// "no event" are done by the driver on the spot and answered by nothing;
// every other action is answered by exactly one Event, later.
type ActionKind uint8

// What a driver is asked to do.
const (
	// ActModel makes one model call (Attempt, from 0) with the
	// conversation (Machine.Conv); Retry says a transient failure will be
	// tried again, so its chat span records the retry. EvModel or
	// EvModelFailed.
	ActModel ActionKind = iota + 1
	// ActSleep waits Wait before the next attempt. EvWoke.
	ActSleep
	// ActBudget asks whether the run's budget is spent. EvBudget.
	ActBudget
	// ActCalls asks for N tool calls under the run's window and the
	// dispatcher's per-turn cap. EvGranted.
	ActCalls
	// ActTool runs call Index of the turn (Machine.Call). EvTool.
	ActTool
	// ActAsync runs the turn's calls at Indexes that start or answer
	// background work (get_skill, dispatch_agent, background and
	// streamed delegations, an orchestrator's own tools), Stream saying
	// the turn's delegate calls stream. EvAsync.
	ActAsync
	// ActOpen opens batch Item's span now: it is ready, and waits from
	// now on. No event.
	ActOpen
	// ActOpenCall opens call Index's span now: a get_agent_results call
	// that begins to wait. No event.
	ActOpenCall
	// ActRefuse ends batch Item without starting it: Outcome.Status and
	// Error say why, Refused names the kind of refusal. EvDone.
	ActRefuse
	// ActCheck checks Item before it waits for a place (permission,
	// target, model, the run's agent count, its budget). EvChecked, or
	// EvDone when it was refused.
	ActCheck
	// ActAdmit is ActCheck and then ActSlot, for an Item whose place in
	// the agent's line is already its own. EvSlot, or EvDone.
	ActAdmit
	// ActQueued and ActAdmitted record on Item's span that it joined,
	// and left, the line of Cap (Limit places). No event.
	ActQueued
	ActAdmitted
	// ActSlot takes a run-wide slot for Item (recording its own waits
	// when Events). EvSlot, or EvDone when the run ended meanwhile.
	ActSlot
	// ActRun runs Item's agent to its end. EvDone.
	ActRun
	// ActFinish ends Item, which will not run, with Outcome. EvDone.
	ActFinish
	// ActRelease gives the invocation's run-wide slot up while it waits.
	// No event.
	ActRelease
	// ActAcquire takes it back. EvSlotBack.
	ActAcquire
	// ActCollect answers get_agent_results call Index with Reports (or,
	// Bad, its arguments' error). EvTool.
	ActCollect
	// ActLimit records on the invocation's span that the limit Why
	// stopped it. No event.
	ActLimit
	// ActStopJobs stops the background agents still running: the
	// invocation is ending. No event (their EvDone follow).
	ActStopJobs
	// ActEnd: the invocation ended with Outcome. Nothing follows.
	ActEnd
)

// Action is one thing the machine asks its driver to do; the fields its
// kind names are set.
type Action struct {
	Kind    ActionKind
	Attempt int
	Retry   bool
	Wait    time.Duration
	N       int
	Index   int
	Indexes []int
	Stream  bool
	Item    int
	Cap     string
	Limit   int
	Events  bool
	Refused string
	Bad     bool
	Reports []Report
	Why     string
	Outcome Outcome
}

// EventKind says what an Event reports.
type EventKind uint8

// What a driver reports.
const (
	// EvModel: the model answered with Resp (its tool calls have IDs).
	EvModel EventKind = iota + 1
	// EvModelFailed: the model call failed; Transient says it may be
	// tried again after Wait; Outcome is how the invocation ends if not.
	EvModelFailed
	// EvWoke: a wait ended.
	EvWoke
	// EvBudget: Why the budget is spent ("" while it is not).
	EvBudget
	// EvGranted: N of the tool calls asked may run; Why the others not.
	EvGranted
	// EvTool: call Index's result is Text.
	EvTool
	// EvAsync: the async calls' results (Results, by call index) and
	// the background agents to start (Jobs).
	EvAsync
	// EvChecked: Item passed its checks.
	EvChecked
	// EvSlot: Item holds a run-wide slot.
	EvSlot
	// EvDone: Item ended with Outcome; Text is what the model reads of
	// a delegate call, Calls a dispatched agent's tool calls.
	EvDone
	// EvSlotBack: the invocation holds its run-wide slot again (or the
	// run ended while it waited).
	EvSlotBack
	// EvStop carries only Stop: the driver's context ended while it
	// waited for something else.
	EvStop
)

// Event is what a driver reports back: the answer to an action, or that
// its context ended (Stop, which any event may carry: how the invocation
// ends now that its run was cancelled or timed out). At is the driver's
// clock, set when Machine.Clocked says it is needed.
type Event struct {
	Kind      EventKind
	Index     int
	Item      int
	Resp      *model.Response
	Transient bool
	Wait      time.Duration
	Why       string
	N         int
	Text      string
	Results   []string
	Jobs      []Job
	Calls     int
	Outcome   Outcome
	At        time.Time
	Stop      *Outcome
}
