package loop

import (
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
)

// Outcome is how an invocation, a delegation or a background agent ended.
type Outcome struct {
	Status trace.Status
	Result string
	Error  string
}

// Spec is what the loop needs to know of an invocation: its agent's file
// (turns, retries, how its batches run) and the limits it runs under. It
// is plain data, so a durable engine carries it between steps.
type Spec struct {
	// Agent names the invocation's agent on the events of its lines.
	Agent string
	// MaxTurns caps its model turns; LoopLimit says the cap is an
	// orchestrator's limits.orchestrator_turns (its last turn's calls
	// are then not run).
	MaxTurns  int
	LoopLimit bool `json:",omitempty"`
	// Attempts is how many times one model turn is tried (retries on
	// transient errors included).
	Attempts int
	// Execution is the file's subagents.execution; MaxConcurrent its
	// subagents.max_concurrent, which its delegations and background
	// agents share.
	Execution     string
	MaxConcurrent int
	// TurnAgents is limits.turn_agents: how many background agents one
	// model turn starts run at once (0 = no cap).
	TurnAgents int `json:",omitempty"`
	// MaxToolCalls is a dispatched agent's max_tool_calls (0 = none).
	MaxToolCalls int `json:",omitempty"`
	// Dispatcher: it is offered get_skill and dispatch_agent; Collects:
	// get_agent_results; Hidden: an orchestrator: true agent, whose own
	// tools (Own) it may not call itself.
	Dispatcher bool     `json:",omitempty"`
	Collects   bool     `json:",omitempty"`
	Hidden     bool     `json:",omitempty"`
	Own        []string `json:",omitempty"`
	// AskBudget: ask the run's ledger (ActBudget) before each model call;
	// AskCalls: ask it (ActCalls) before a turn's tool calls run (the
	// conversation window, a dispatcher's per-turn tool calls).
	AskBudget bool `json:",omitempty"`
	AskCalls  bool `json:",omitempty"`
}

// DelegateArgs are the arguments of one delegate call (the delegate tool's
// schema, delegation's delegateParams, lists the same fields but
// background: an agent that may collect background agents learns of it
// from its tools).
type DelegateArgs struct {
	Agent      string   `json:"agent"`
	Task       string   `json:"task"`
	Context    string   `json:"context"`
	Execution  string   `json:"execution"`
	ID         string   `json:"id"`
	DependsOn  []string `json:"depends_on"`
	Background bool     `json:"background"`
}

// Exec is the execution mode a batch ran in and, when the parent asked for
// more than its file allows, what it asked for.
type Exec struct {
	Mode, Asked string `json:",omitempty"`
}

// ItemKind says what an Item is.
type ItemKind uint8

// Kinds of Item.
const (
	// Batch is a delegate call of a turn's batch.
	Batch ItemKind = iota
	// Background is a delegate call with background: true, or one of a
	// parallel_streaming turn.
	Background
	// Dispatch is an agent started by dispatch_agent.
	Dispatch
)

// Item is a delegation the loop schedules: a delegate call of a turn's
// batch, or a background agent. A driver reads it (Machine.Item) to carry
// out the actions that name it; it must not change it.
type Item struct {
	Kind  ItemKind
	Index int // the call's place in its turn
	Call  model.ToolCall
	// Args are a delegate call's arguments (Batch, Background), ArgErr
	// why they cannot be used ("" when they can).
	Args   DelegateArgs
	ArgErr string `json:",omitempty"`
	// Exec is a Batch call's batch's mode (for its span).
	Exec Exec
	// Turn is the model turn that started it (counted from 0).
	Turn int
	// Deps are the ended calls (Batch) or agents (Dispatch) it depended on.
	Deps []Dependency `json:",omitempty"`
	// Conv is, for a Background call, the conversation as it was when it
	// was asked (its context modes read it).
	Conv []model.Message `json:",omitempty"`
	// Job is a background agent as the Async step named it; Started is
	// when it was registered (a driver's clock, Event.At).
	Job     Job
	Started time.Time

	st    itemState
	agent bool // holds a slot of the agent's line
	// lineFull: the agent's line was full when the call came up, so it
	// waits in line from then on, however long its check takes.
	lineFull bool
	inTurn   bool // holds a slot of its turn's line
	done     bool
	out      Outcome
	text     string
	calls    int
	ended    time.Time
	on       []int // batch: positions of the calls it waits for
	after    []int // batch: positions of the calls waiting on this one
	wait     int   // batch: unfinished dependencies
	wants    []int // dispatch: job numbers it depends on
	stream   bool
	taken    bool // its result reached the model
}

// Dependency is an ended call or agent another depended on.
type Dependency struct {
	ID, Agent string
	Outcome
}

// Job is a background agent a turn started, as the Async step returns it:
// a dispatch (its span open, its ad-hoc agent started when it runs) or a
// delegate call with background: true. Span is the engine's record of its
// execute_tool span, opaque to the loop.
type Job struct {
	ID, Agent  string
	Index      int // of the call in its turn
	Call       model.ToolCall
	Background bool
	Stream     bool // a parallel_streaming call: its result goes to the model as it lands
	Span       trace.Span
	DependsOn  []string `json:",omitempty"`
	Tools      []string `json:",omitempty"`
}

type itemState uint8

const (
	stNew       itemState = iota
	stDeps                // a dispatch waiting for its depends_on agents
	stChecking            // ActCheck or ActAdmit under way
	stTurnLine            // waiting in its turn's line
	stAgentLine           // waiting in the agent's line
	stSlot                // ActSlot under way
	stRunning             // ActRun under way
	stEnding              // ActRefuse or ActFinish under way
	stDone
)
