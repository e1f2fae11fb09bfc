package runs

import (
	"time"

	"github.com/agentry/agentry/trace"
)

// Timeline is the waterfall of one run, shaped like the screen: a header, a
// shared time axis, the spans as a tree of rows, and the per-agent rollup.
//
// It is computed on the server so the browser only places bars; positions are
// percentages of the axis, which the page's script applies (the content
// security policy forbids inline style attributes).
type Timeline struct {
	Run    RunHeader
	Axis   Axis
	Roots  []*TimelineRow // the tree; Rows holds the same rows flat
	Rows   []*TimelineRow // every row in tree order (parents before children)
	Rollup []RollupRow
	// NotOK counts rows whose own status is not ok (see NotOK).
	NotOK int
	// FirstError is the span where the run's failures began: of the spans
	// that failed while none of their descendants did, the one that started
	// first. "Next error" goes there first. "" when nothing failed.
	FirstError string
	// Spans counts the spans laid out (Rows also holds group rows).
	Spans int
	// Marks says which of the waterfall's marks the run shows, so the
	// legend explains those and no others.
	Marks Marks
	// Big is set when the run has more than VisibleRows rows: rows at and
	// below CollapseLevel then start collapsed, so the run opens as an
	// overview. Group rows always start collapsed.
	Big           bool
	CollapseLevel int
	// Versions are the version of each agent's file the run ran with, and
	// Tags why the run was made (a replay, an eval case); versions.go.
	Versions []AgentVersion
	Tags     RunTags

	run     trace.Run               // what the layout was built from (the extras read it)
	targets []*TimelineRow          // where failures began, in tree order ("next error")
	byID    map[string]*TimelineRow // every row, group rows included
}

// Marks are the waterfall's marks a run shows.
type Marks struct {
	NotOK, Retries, Queued, Critical bool
}

// Input is one input of a workflow run.
type Input struct{ Name, Value string }

// VisibleRows is how many rows a big run shows at first: the levels that fit
// in it stay open, and at least the root and its direct children show.
const VisibleRows = 400

// RunHeader is the run's summary above the waterfall.
type RunHeader struct {
	ID, Agent, Task, Model string
	Status                 trace.Status
	Live                   bool // still running: the page listens for changes
	Started                string
	Duration               string
	Tokens                 string
	Cost                   string // "" when no call was priced
	Agents                 int
	Result, Error          string
	// Inputs are a workflow run's inputs, name: value, read from its task
	// (a JSON object); nil for an agent's run, whose task is text.
	Inputs []Input
	// Workflow is set for a workflow's run (its root is invoke_workflow):
	// it has no agent to reply to.
	Workflow bool
}

// Axis is the shared time axis: where it starts, how long it is, and ticks.
type Axis struct {
	Start time.Time
	Total time.Duration
	Ticks []Tick
}

// Tick is one labelled mark on the time axis.
type Tick struct {
	Label string
	Left  float64 // percent of the axis
}

// TimelineRow is one span on the waterfall.
type TimelineRow struct {
	ID, ParentID string
	Level        int // nesting in the tree; 0 for a root
	Kind         trace.Kind
	Name         string // what the row says: agent, model or tool
	Agent        string
	Status       trace.Status // statusQueued while a delegation waits for its slot
	// Version is an invoke_agent row's agent_version: the file content the
	// agent ran with ("" for others, and for agents that have no file).
	Version string
	// Left and Width place the bar on the axis, in percent. QueueLeft and
	// QueueWidth place the lighter queue-wait segment drawn before it.
	Left, Width           float64
	QueueLeft, QueueWidth float64
	Queued                string // the wait, formatted; "" when none
	Critical              bool   // on the chain that determined the run's end
	Retry                 int    // retry attempt number, 0 for a first try
	Collapsed             bool   // its children start hidden
	Children              []*TimelineRow
	// Group is set on a group row: ten or more sibling delegations to one
	// agent, read as one row whose bar is their envelope (see groupChildren).
	Group *GroupStats
	// Sub counts failures in the subtree below the row (not the row itself),
	// so a collapsed row still shows what it hides; SubTally says which.
	Sub      Counts
	SubTally StatusTally

	start, end time.Time // end is the axis end for a running span
	in, out    int64     // tokens
	deleg      bool      // a call of the delegate tool
	title      string    // the title of a span of a kind without its own (see Title)
	parent     *TimelineRow
	pos        int   // index in Timeline.Rows
	cached     int64 // input tokens read from the prompt cache (chat spans)
}

// Counts are failure tallies of a subtree. Denials are a part of NotOK,
// shown apart because a denial is a decision, not a crash.
type Counts struct {
	NotOK, Denials, Retries int
}

// Any reports whether any count is non-zero.
func (c Counts) Any() bool { return c.NotOK+c.Retries > 0 }

func (c *Counts) add(o Counts) {
	c.NotOK += o.NotOK
	c.Denials += o.Denials
	c.Retries += o.Retries
}

// RollupRow is one agent's line in the rollup beside the waterfall.
type RollupRow struct {
	Agent       string
	Invocations int
	Calls       int // model and tool calls
	Time        string
	Tokens      string
	Cost        string // "" when none of its calls was priced
	NotOK       int    // spans of this agent that are not ok (see NotOK)
	Folded      bool   // the line that sums the agents past maxRollup
	// CacheHits is the share of the agent's input tokens its provider read
	// from the prompt cache ("62%"); "" when it reported none.
	CacheHits string
}

// PageControls are the run page's parts that depend on this server or this
// moment, not on the run's spans: the layout (Timeline) is shared between
// requests.
type PageControls struct {
	Cancellable bool      // this server started the run and can cancel it
	CanReply    bool      // this server can start runs: the reply box (reply.templ) of an agent's run
	Extras      RunExtras // above the header: approvals waiting, continue (runs_extras.go)
}
