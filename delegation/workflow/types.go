package workflow

import (
	"time"

	"github.com/agentry/agentry/permissions"
	"github.com/expr-lang/expr/vm"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Step types.
const (
	TypeSequential  = "sequential"
	TypeParallel    = "parallel"
	TypeConditional = "conditional"
	TypeLoop        = "loop"
	TypeMap         = "map"
)

// DefaultMapConcurrency is how many map elements run at once when the step
// does not say.
const DefaultMapConcurrency = 20

// AllPriorContext is the literal input that means every earlier step's output.
const AllPriorContext = "all prior context"

// Workflow is one loaded workflow file.
type Workflow struct {
	File string
	// Hash is registry.Hash of the bytes the workflow was parsed from: the
	// version of its file, which its runs record (workflow_version), as an
	// agent's runs record registry.Agent.Version.
	Hash        string
	Name        string
	Description string
	Version     string
	Timeout     time.Duration
	Inputs      []Input
	Agents      map[string]*Agent
	AgentOrder  []string // inline agent IDs in file order
	Steps       []*Step
	Line        int
}

// Input is one declared input.
type Input struct {
	Name        string
	Type        string // string | number | boolean | json | file_path
	Required    bool
	Default     any
	HasDefault  bool
	Description string
	Line        int
}

// Agent is an inline agent definition.
type Agent struct {
	ID        string
	Name      string
	Role      string
	Prompt    *Template
	Tools     []string // as written (Claude Code names)
	Rules     permissions.Rules
	Timeout   time.Duration
	Retry     Retry
	OnFailure string // skip | abort | fallback
	Fallback  string // agent ID when OnFailure is fallback
	Schema    *jsonschema.Schema
	RuleTexts []string
	Line      int
}

// Retry is a workflow agent's retry policy.
type Retry struct {
	MaxAttempts int    // runs in all; 1 = no retry
	Backoff     string // none | linear | exponential | constant
}

// Step is one step of the workflow.
type Step struct {
	ID        string
	Agent     string
	Type      string
	Input     *Template // nil when not given
	AllPrior  bool      // input is "all prior context"
	Parallel  []Branch
	Wait      string // all | any | N
	WaitN     int
	Condition *Condition
	Loop      *Loop
	Map       *Map
	Timeout   time.Duration
	Output    Output
	Line      int

	agentLine int // line of the agent key
	index     int
	deps      []int // indexes of steps this one waits for
	gate      int   // index of the conditional that may route here, -1 when none
}

// Branch is one agent of a parallel step.
type Branch struct {
	Agent     string
	Input     *Template
	OutputKey string
	Line      int
}

// Condition routes a conditional step.
type Condition struct {
	Eval    string
	program *vm.Program
	True    string
	False   string
	Line    int
}

// Loop is a producer/validator loop.
type Loop struct {
	Agent         string
	Validator     string
	MaxIterations int
	FeedbackPath  *Template
}

// Map runs an agent over each element of a JSON array, then a reducer.
type Map struct {
	Over        *Template
	Agent       string
	Reduce      string
	Concurrency int
}

// Output says where and in which format a step's result is kept.
type Output struct {
	StoreAs string
	Format  string // json | text | markdown ("" = text)
}

// Deps returns the IDs of the steps s waits for.
func (w *Workflow) Deps(s *Step) []string {
	out := make([]string, 0, len(s.deps))
	for _, d := range s.deps {
		out = append(out, w.Steps[d].ID)
	}
	return out
}

// Gate returns the conditional step that routes to s, or nil.
func (w *Workflow) Gate(s *Step) *Step {
	if s.gate < 0 {
		return nil
	}
	return w.Steps[s.gate]
}

// IsInline reports whether id names an inline agent.
func (w *Workflow) IsInline(id string) bool { _, ok := w.Agents[id]; return ok }
