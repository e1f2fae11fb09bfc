package permissions

import (
	"fmt"
	"slices"
	"strings"
)

// DelegateTool is the name of the tool through which an agent delegates; it is
// the Subject of a MayDelegate decision.
const DelegateTool = "delegate"

// maxDepth is d.MaxDepth with the default applied.
func (d Delegation) maxDepth() int {
	if d.MaxDepth <= 0 {
		return DefaultMaxDepth
	}
	return d.MaxDepth
}

// MayDelegate decides whether the last agent of branch (root first) gets the
// delegate tool at all: a root may; an agent running as a sub-agent
// (len(branch) > 1) only with Nested; and only while the child's depth
// len(branch) <= MaxDepth (0 → DefaultMaxDepth).
func (d Delegation) MayDelegate(branch []Agent) Decision {
	out := Decision{Subject: DelegateTool}
	if len(branch) == 0 {
		out.Reason = "denied: there is no agent to delegate from"
		return out
	}
	self := branch[len(branch)-1]
	// No delegate, dispatch_agent or background calls: Claude Code's and
	// VS Code's meaning of a tool list without their delegation tool.
	if l := self.ToolLimit; l.All || l.Refused != "" {
		out.Level = self.Name
		out.Reason = fmt.Sprintf("denied by %s: %s", label(self.Name), noDelegationTool)
		if !l.All {
			out.Reason = fmt.Sprintf("denied by %s: %s, so it may not delegate", label(self.Name), l.Refused)
		}
		return out
	}
	depth, maxDepth := len(branch), d.maxDepth()
	if depth > 1 && !self.Nested {
		out.Level = self.Name
		out.Reason = fmt.Sprintf("denied by %s: it runs as a sub-agent (depth %d) and does not set subagents.nested: true",
			label(self.Name), depth-1)
		return out
	}
	if depth > maxDepth {
		out.Level = GlobalLevel
		out.Reason = fmt.Sprintf("denied by global: a child would run at depth %d, beyond max_depth %d", depth, maxDepth)
		return out
	}
	out.Allowed, out.Level = true, self.Name
	if depth == 1 {
		out.Reason = fmt.Sprintf("allowed: %s is the root of the run (a child runs at depth 1 of max_depth %d)", label(self.Name), maxDepth)
	} else {
		out.Reason = fmt.Sprintf("allowed: %s sets subagents.nested: true (a child runs at depth %d of max_depth %d)", label(self.Name), depth, maxDepth)
	}
	return out
}

// Target decides whether the last agent of branch may delegate to target:
// MayDelegate, then the delegator's ToolLimit, then its own Subagents rules,
// then every ancestor's Subagents.Deny (inherited), then disabled
// (target.Enabled false or in d.Disabled), then target.NotSubagent (which
// an allow entry naming the target exactly overrides, as VS Code's agents:
// list overrides disable-model-invocation), then re-entry (target already on branch, or the delegator itself, is denied
// unless target.Nested).
//
// An absent Subagents.Allow names no sub-agents (delegation is opt-in), but the
// built-in GeneralPurpose is allowed unless a deny pattern matches it; it has no
// file, so its Enabled field is ignored and only d.Disabled can switch it off.
func (d Delegation) Target(branch []Agent, target Agent) Decision {
	if may := d.MayDelegate(branch); !may.Allowed {
		may.Subject = target.Name
		return may
	}
	self := branch[len(branch)-1]
	if deny := toolLimit(self, target.Name); deny.Reason != "" {
		return deny
	}
	out := subagentRule(self, target.Name)
	if !out.Allowed {
		return out
	}
	for _, anc := range branch[:len(branch)-1] {
		if p, ok := bestMatch(anc.Subagents.Deny, target.Name); ok {
			return Decision{Subject: target.Name, Level: anc.Name, Pattern: p,
				Reason: fmt.Sprintf("denied by %s: inherited subagents deny pattern %q", label(anc.Name), p)}
		}
	}
	if deny := d.disabled(target); deny.Reason != "" {
		return deny
	}
	if target.NotSubagent != "" && !slices.Contains(self.Subagents.Allow, target.Name) {
		return Decision{Subject: target.Name, Level: target.Name,
			Reason: fmt.Sprintf("denied by %s: it may not run as a sub-agent (%s) unless its parent names it in its allow list", label(target.Name), target.NotSubagent)}
	}
	if deny := reentry(branch, target); deny.Reason != "" {
		return deny
	}
	if ask, ok := d.askTarget(branch, target.Name); ok {
		ask.Reason += " (" + out.Reason + ")"
		return ask
	}
	return out
}

// noDelegationTool is why an agent whose tool deny list names the
// delegation tool may not delegate at all.
const noDelegationTool = "its tool deny list names the delegation tool (Task or Agent), so it may not delegate"

// toolLimit refuses target when the delegator's tool lists do (ToolLimit);
// a zero Decision is no refusal.
func toolLimit(self Agent, target string) Decision {
	l := self.ToolLimit // l.All and l.Refused refused in MayDelegate, before any target
	deny := func(pattern, why string) Decision {
		return Decision{Subject: target, Level: self.Name, Pattern: pattern,
			Reason: fmt.Sprintf("denied by %s: %s", label(self.Name), why)}
	}
	if p, ok := bestMatch(l.Deny, target); ok {
		return deny(p, fmt.Sprintf("its tool deny list names Agent(%s)", p))
	}
	if _, ok := bestMatch(l.Only, target); l.Only != nil && !ok {
		return deny("", fmt.Sprintf("its tools limit delegation to Agent(%s)", strings.Join(l.Only, ", ")))
	}
	return Decision{}
}

// subagentRule applies the delegator's own subagents allow and deny lists.
func subagentRule(self Agent, target string) Decision {
	r := self.Subagents
	if p, ok := bestMatch(r.Deny, target); ok {
		return Decision{Subject: target, Level: self.Name, Pattern: p,
			Reason: fmt.Sprintf("denied by %s: subagents deny pattern %q", label(self.Name), p)}
	}
	if p, ok := bestMatch(r.Allow, target); ok {
		return Decision{Subject: target, Allowed: true, Level: self.Name, Pattern: p,
			Reason: fmt.Sprintf("allowed by %s: subagents allow pattern %q", label(self.Name), p)}
	}
	if target == GeneralPurpose {
		return Decision{Subject: target, Allowed: true, Level: self.Name,
			Reason: fmt.Sprintf("allowed: %s is built in and %s does not deny it", GeneralPurpose, label(self.Name))}
	}
	if r.Allow == nil {
		return Decision{Subject: target, Level: self.Name,
			Reason: fmt.Sprintf("denied by %s: it has no subagents allow list, and delegation to named agents is opt-in", label(self.Name))}
	}
	return Decision{Subject: target, Level: self.Name,
		Reason: fmt.Sprintf("denied by %s: no subagents allow pattern matches (allow: %s)", label(self.Name), list(r.Allow))}
}

// Runnable decides whether a may run at all, as the root of a run or as a
// delegation target: not when the user switched it off in its file or in the
// global disabled list (whose entries are patterns).
func (d Delegation) Runnable(a Agent) Decision {
	if deny := d.disabled(a); deny.Reason != "" {
		return deny
	}
	return Decision{Subject: a.Name, Allowed: true, Reason: fmt.Sprintf("allowed: %s is enabled", label(a.Name))}
}

// disabled denies a target the user switched off; the zero Decision means it is not.
func (d Delegation) disabled(target Agent) Decision {
	if p, ok := bestMatch(d.Disabled, target.Name); ok {
		return Decision{Subject: target.Name, Level: GlobalLevel, Pattern: p,
			Reason: fmt.Sprintf("denied by global: agent %q is disabled (disabled_agents %q)", target.Name, p)}
	}
	if !target.Enabled && target.Name != GeneralPurpose {
		return Decision{Subject: target.Name, Level: target.Name,
			Reason: fmt.Sprintf("denied by %s: it is disabled (enabled: false)", label(target.Name))}
	}
	return Decision{}
}

// reentry denies a target already on the branch unless it opted into nesting;
// the zero Decision means the target may run.
func reentry(branch []Agent, target Agent) Decision {
	if target.Nested || !slices.ContainsFunc(branch, func(a Agent) bool { return a.Name == target.Name }) {
		return Decision{}
	}
	names := make([]string, len(branch))
	for i, a := range branch {
		names[i] = a.Name
	}
	return Decision{Subject: target.Name, Level: target.Name,
		Reason: fmt.Sprintf("denied by %s: it is already on this branch (%s) and does not set subagents.nested: true",
			label(target.Name), strings.Join(names, " → "))}
}

// Targets decides each candidate, sorted by name; the built-in GeneralPurpose
// is always a candidate.
//
// A candidate listed twice is decided once (the first entry wins).
func (d Delegation) Targets(branch []Agent, candidates []Agent) []Decision {
	all := make([]Agent, 0, len(candidates)+1)
	seen := make(map[string]bool, len(candidates)+1)
	for _, c := range candidates {
		if !seen[c.Name] {
			seen[c.Name] = true
			all = append(all, c)
		}
	}
	if !seen[GeneralPurpose] {
		all = append(all, Agent{Name: GeneralPurpose, Enabled: true})
	}
	slices.SortFunc(all, func(a, b Agent) int { return strings.Compare(a.Name, b.Name) })
	out := make([]Decision, len(all))
	for i, c := range all {
		out[i] = d.Target(branch, c)
	}
	return out
}
