package delegation

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/orchestrator"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/skills"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
)

// Defaults the runtime applies where an agent file or the Config is silent.
// The number of attempts is the registry's (registry.DefaultMaxAttempts), the
// one source of truth for an agent's retry policy; the runtime adds only the
// timing, which agent files do not set.
const (
	defaultMaxTurns     = 25
	defaultRetryBackoff = 500 * time.Millisecond
	maxRetryBackoff     = 30 * time.Second
)

// Config sets up a Runtime.
type Config struct {
	// Agents gives the agents; each run takes one Snapshot so it sees one
	// consistent set. Required.
	Agents interface{ Snapshot() *registry.Snapshot }
	// Models builds LLMs from specs. Required.
	Models model.Providers
	// Aliases map a model alias (sonnet, opus, haiku, ...) to a spec.
	Aliases map[string]string
	// DefaultModel is used when an agent says nothing, or "inherit" at the
	// root, or names models none of which can be used here. Required.
	DefaultModel string
	// Sink receives the trace as the run happens. Nil discards it.
	Sink trace.Sink
	// Tools are the built-in tools (filesystem confined to a workspace, web.fetch).
	Tools []tool.Tool
	// GlobalTools are the global tool rules, the first level of every chain.
	GlobalTools permissions.Rules
	// Skills gives the Agent Skills; a run takes one Library when it
	// first needs one (skills.go). Nil: no agent has skills.
	Skills interface{ Snapshot() *skills.Library }
	// GlobalSkills are the global skills rules, the first level of every
	// skills chain (permissions.Skill).
	GlobalSkills permissions.Rules
	// Delegation holds max depth and the globally disabled agents.
	Delegation permissions.Delegation
	// MaxConcurrent caps agent invocations working at once across a run's
	// whole tree (0 = no cap). MaxAgentsPerRun caps invocations per run,
	// the root included (0 = no cap).
	MaxConcurrent, MaxAgentsPerRun int
	// Timeout bounds a whole run (0 = none).
	Timeout time.Duration
	// TokenBudget caps a run's input plus output tokens (0 = none).
	TokenBudget int64
	// Now is the clock for span times. Nil means time.Now.
	Now func() time.Time
	// Logger receives run-level events. Nil means slog.Default().
	Logger *slog.Logger
	// Sleep waits d between retries or until ctx ends; tests replace it.
	// Nil means a real timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// RetryBackoff is the first retry's wait (doubled per attempt for
	// exponential backoff). 0 means 500ms.
	RetryBackoff time.Duration
	// Hooks, when set, runs the user's hook commands around tool calls,
	// delegations and the run (hookpoints.go). Nil runs none.
	Hooks control.Hooks
	// Prices, when set, puts each chat span's cost in USD on it (cost_usd).
	Prices control.Prices
	// Limits is the limit hierarchy of orchestration (hierarchy.go): tool
	// timeouts, dispatched agents' defaults, per-turn caps, the
	// orchestrator's loop limit, the conversation window and circuit
	// breakers, for every run that is not an orchestrator conversation.
	// The zero value turns them off.
	Limits orchestrator.Limits
	// OrchestratorLimits, when set, replaces Limits in an orchestrator
	// conversation (a run whose root agent has subagents.dispatch: true or
	// orchestrator: true, and its follow-ups) and for every orchestrator
	// invocation's own caps: seed 001's limits are its orchestrator's
	// defaults, not every run's. Nil means Limits.
	OrchestratorLimits *orchestrator.Limits
	// Approvals keeps the calls whose verdict is ask until someone answers
	// (approval.go); nil keeps them in memory, for Asker alone to answer.
	Approvals approval.Store
	// Asker answers ask verdicts in this process first (--approve,
	// --deny-asks, a terminal prompt); nil leaves them to Approvals.
	Asker control.Asker
	// ApprovalTimeout denies a call nobody answered in time (0 means
	// control.DefaultApprovalTimeout); ApprovalPoll is how often a waiting call
	// reads its row (0 means 200ms).
	ApprovalTimeout, ApprovalPoll time.Duration
	// Budget caps every run's whole tree (budget.go); the root agent's
	// budget and Request.Budget apply too.
	Budget registry.Budget
	// Remote are sub-agents that run elsewhere (remote.go): delegation
	// targets beside the registry's agents, which shadow one of the same id.
	Remote []RemoteAgent
}

// Errors callers branch on.
var (
	// ErrUnknownAgent is returned by Start for an agent the registry does not hold.
	ErrUnknownAgent = registry.ErrUnknownAgent
	// ErrAgentDisabled is returned by Start for a disabled agent.
	ErrAgentDisabled = errors.New("agent is disabled")
	// ErrRunTimeout is the cause of a run that hit Config.Timeout.
	ErrRunTimeout = errors.New("run timed out")
	// ErrAgentTimeout is the cause of an invocation that hit its agent's timeout.
	ErrAgentTimeout = errors.New("agent timed out")
	// ErrTokenBudget is the cause of a run stopped by its token budget.
	ErrTokenBudget = errors.New("token budget exceeded")
	// ErrCancelled is the cause of a run stopped by Execution.Cancel.
	ErrCancelled = errors.New("run cancelled")
)

// AgentTimedOut is the cause of an invocation of agent that ran past its
// timeout d: ErrAgentTimeout, naming both. A local and a remote agent's
// invocation end with it in-process; the Temporal engine words its error
// the same way.
func AgentTimedOut(agent string, d time.Duration) error {
	return fmt.Errorf("%w: %s after %s", ErrAgentTimeout, agent, d)
}

// agentSet is what a run reads from a registry snapshot.
type agentSet interface {
	Agent(name string) (registry.Agent, bool)
	Agents() []registry.Agent
}

// Runtime runs agents. It is safe for concurrent use; each Start is independent.
type Runtime struct {
	cfg      Config
	snapshot func() agentSet
	tools    map[string]tool.Tool
	known    []string // sorted names of cfg.Tools
	toolsets toolsetCache
	callers  callerSets // the levels above a root agent with Request.Tools
	specs    specCache
	breakers orchestrator.Breakers
	windows  orchestrator.Windows
}

// New checks cfg and returns a Runtime.
func New(cfg Config) (*Runtime, error) {
	if cfg.Agents == nil {
		return nil, errors.New("delegation config: Agents is required")
	}
	src := cfg.Agents
	return newRuntime(cfg, func() agentSet { return src.Snapshot() })
}

func newRuntime(cfg Config, snapshot func() agentSet) (*Runtime, error) {
	if cfg.Models == nil {
		return nil, errors.New("delegation config: Models is required")
	}
	if cfg.DefaultModel == "" {
		return nil, errors.New("delegation config: DefaultModel is required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Sink == nil {
		cfg.Sink = discard{}
	}
	if cfg.Sleep == nil {
		cfg.Sleep = model.Sleep
	}
	if cfg.RetryBackoff <= 0 {
		cfg.RetryBackoff = defaultRetryBackoff
	}
	r := &Runtime{cfg: cfg, snapshot: snapshot, tools: map[string]tool.Tool{}}
	for _, t := range cfg.Tools {
		name := t.Spec().Name
		if slices.Contains(reservedTools, name) {
			return nil, fmt.Errorf("delegation config: tool name %q is reserved", name)
		}
		if _, dup := r.tools[name]; dup {
			return nil, fmt.Errorf("delegation config: tool %q given twice", name)
		}
		r.tools[name] = t
	}
	r.known = tool.Names(cfg.Tools)
	return r, nil
}

type discard struct{}

func (discard) RecordRun(trace.Run)   {}
func (discard) RecordSpan(trace.Span) {}
