package registry

import (
	"fmt"
	"slices"

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
	// UnnamedRemote are the card URLs of remote agents known only by their
	// card's name, which was not read: they are not decided.
	UnnamedRemote []string `json:"unnamed_remote,omitempty"`
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
	// Remote is the agent card's URL of a target that runs elsewhere.
	Remote string `json:"remote,omitempty"`
}

// RemoteTarget is an agent that runs elsewhere (a2a: in agentry.yaml) as
// the permission views show it: a delegation target beside the files'
// agents, which shadow one of the same id, as they do at run time.
type RemoteTarget struct {
	// Agent is the target as the runtime decides it
	// (delegation.RemoteAgent.Target). Its Name is "" when only the card
	// names the agent and the card was not read.
	Agent       permissions.Agent
	Card        string // the agent card's URL
	Description string
}

// Explain decides every known tool and every agent as a delegation target for
// the last agent of chain (root first): the files' agents and the remote
// ones. The built-in general-purpose agent may appear in the chain: it adds
// no rules of its own, as it runs with its parent's. A remote agent may
// not: what it uses and calls is its own server's.
func (s *Snapshot) Explain(global permissions.Rules, d permissions.Delegation, chain []string, remote ...RemoteTarget) (Explanation, error) {
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
			if r, elsewhere := s.Remote(remote, name); elsewhere {
				return Explanation{}, fmt.Errorf("explain: %w: %q runs elsewhere (A2A card %s); what it may use and call is its own server's", ErrUnknownAgent, name, r.Card)
			}
			return Explanation{}, fmt.Errorf("explain: %w: no agent named %q", ErrUnknownAgent, name)
		}
		levels = append(levels, permissions.Level{Name: a.Name, Rules: a.Tools})
		branch = append(branch, a.Permissions())
	}
	e := Explanation{Agent: chain[len(chain)-1], Chain: append([]string{"global"}, chain...)}
	candidates, cards := s.DelegationTargets(remote)
	for _, r := range remote {
		if r.Agent.Name == "" {
			e.UnnamedRemote = append(e.UnnamedRemote, r.Card)
		}
	}
	for i := 1; i < len(branch); i++ {
		if dec := d.Target(branch[:i], branch[i]); !dec.Allowed {
			e.Warnings = append(e.Warnings, fmt.Sprintf("this chain cannot happen: %s may not delegate to %s (%s)", chain[i-1], chain[i], dec.Reason))
		}
	}
	// Known tools include "<server>.*" for MCP servers, whose tools are only
	// listed once they run: the group is decided as one. A permission that
	// is no tool (shell.network) is decided as the runtime grants it: only
	// where a level names it exactly, never through "*" or its group.
	for _, dec := range permissions.Tools(levels, s.opts.known()) {
		if slices.Contains(permissionOnlyTools, dec.Subject) {
			dec = permissions.Grant(levels, dec.Subject)
		}
		e.Tools = append(e.Tools, ToolDecision{dec.Subject, dec.Allowed, dec.Ask, dec.Reason, dec.Level, dec.Pattern})
	}
	for _, dec := range d.Targets(branch, candidates) {
		e.Subagents = append(e.Subagents, AgentDecision{dec.Subject, dec.Allowed, dec.Ask, dec.Reason, dec.Level, dec.Pattern, cards[dec.Subject]})
	}
	return e, nil
}

// DelegationTargets are the delegation targets the runtime decides: the
// files' agents in id order, then the remote agents no file shadows
// (RemoteTargets), with those remote agents' A2A cards by name.
func (s *Snapshot) DelegationTargets(remote []RemoteTarget) (targets []permissions.Agent, cards map[string]string) {
	agents := s.Agents()
	targets = make([]permissions.Agent, len(agents), len(agents)+len(remote))
	for i, a := range agents {
		targets[i] = a.Permissions()
	}
	cards = map[string]string{}
	for _, r := range s.RemoteTargets(remote) {
		targets = append(targets, r.Agent)
		cards[r.Agent.Name] = r.Card
	}
	return targets, cards
}

// RemoteTargets are the remote agents that are delegation targets beside
// the snapshot's agents: named, and not shadowed by an agent file of the
// same id (delegations to that id go to the file's agent).
func (s *Snapshot) RemoteTargets(remote []RemoteTarget) []RemoteTarget {
	var out []RemoteTarget
	for _, r := range remote {
		if _, shadowed := s.Agent(r.Agent.Name); r.Agent.Name != "" && !shadowed {
			out = append(out, r)
		}
	}
	return out
}

// Remote is the remote agent named name, when it is a delegation target
// (named, and no agent file has that id).
func (s *Snapshot) Remote(remote []RemoteTarget, name string) (RemoteTarget, bool) {
	for _, r := range s.RemoteTargets(remote) {
		if r.Agent.Name == name {
			return r, true
		}
	}
	return RemoteTarget{}, false
}
