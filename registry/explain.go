package registry

import (
	"fmt"

	"github.com/agentry/agentry/permissions"
)

// Explanation answers "on this delegation chain, what may the last agent use and
// whom may it call, and why". The CLI's `permissions` command and the web UI's
// explorer both print it, so they can never disagree.
type Explanation struct {
	Agent string `json:"agent"`
	// Chain lists the levels in the order they apply: "global", the root, …, Agent.
	Chain     []string        `json:"chain"`
	Tools     []ToolDecision  `json:"tools"`
	Subagents []AgentDecision `json:"subagents"`
	// Warnings say where the chain could not happen at run time: a link that
	// may not delegate to the next. The decisions are still shown, as asked.
	Warnings []string `json:"warnings,omitempty"`
}

// ToolDecision is one tool's verdict in the `permissions --json` shape.
type ToolDecision struct {
	Tool    string `json:"tool"`
	Allowed bool   `json:"allowed"`
	Ask     bool   `json:"ask,omitempty"` // allowed only with a person's approval of each call
	Reason  string `json:"reason"`
	Level   string `json:"level,omitempty"`
	Pattern string `json:"pattern,omitempty"`
}

// AgentDecision is one delegation target's verdict in the `permissions --json` shape.
type AgentDecision struct {
	Agent   string `json:"agent"`
	Allowed bool   `json:"allowed"`
	Ask     bool   `json:"ask,omitempty"` // allowed only with a person's approval of each call
	Reason  string `json:"reason"`
	Level   string `json:"level,omitempty"`
	Pattern string `json:"pattern,omitempty"`
}

// Explain decides every known tool and every agent as a delegation target for
// the last agent of chain (root first). The built-in general-purpose agent may
// appear in the chain: it adds no rules of its own, as it runs with its parent's.
func (s *Snapshot) Explain(global permissions.Rules, d permissions.Delegation, chain []string) (Explanation, error) {
	if len(chain) == 0 {
		return Explanation{}, fmt.Errorf("explain: no agent given")
	}
	levels := []permissions.Level{{Name: "global", Rules: global}}
	branch := make([]permissions.Agent, 0, len(chain))
	for _, name := range chain {
		if name == permissions.GeneralPurpose {
			levels = append(levels, permissions.Level{Name: name})
			branch = append(branch, permissions.Agent{Name: name, Enabled: true})
			continue
		}
		a, ok := s.Agent(name)
		if !ok {
			return Explanation{}, fmt.Errorf("explain: %w: no agent named %q", ErrUnknownAgent, name)
		}
		levels = append(levels, permissions.Level{Name: a.Name, Rules: a.Tools})
		branch = append(branch, a.Permissions())
	}
	agents := s.Agents()
	candidates := make([]permissions.Agent, len(agents))
	for i, a := range agents {
		candidates[i] = a.Permissions()
	}
	e := Explanation{Agent: chain[len(chain)-1], Chain: append([]string{"global"}, chain...)}
	for i := 1; i < len(branch); i++ {
		if dec := d.Target(branch[:i], branch[i]); !dec.Allowed {
			e.Warnings = append(e.Warnings, fmt.Sprintf("this chain cannot happen: %s may not delegate to %s (%s)", chain[i-1], chain[i], dec.Reason))
		}
	}
	// Known tools include "<server>.*" for MCP servers, whose tools are only
	// listed once they run: the group is decided as one.
	for _, dec := range permissions.Tools(levels, s.opts.known()) {
		e.Tools = append(e.Tools, ToolDecision{dec.Subject, dec.Allowed, dec.Ask, dec.Reason, dec.Level, dec.Pattern})
	}
	for _, dec := range d.Targets(branch, candidates) {
		e.Subagents = append(e.Subagents, AgentDecision{dec.Subject, dec.Allowed, dec.Ask, dec.Reason, dec.Level, dec.Pattern})
	}
	return e, nil
}
