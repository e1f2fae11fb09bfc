package core

import (
	"slices"
	"strings"

	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
)

// Exposure is what outside tools may run through MCP, A2A and the JSON
// API's run endpoints, and under which permissions (the expose: section).
// Its zero value exposes nothing, so nothing is reachable by surprise.
type Exposure struct {
	// Agents and Workflows are name patterns (permissions.Match: a name,
	// a glob such as "research-*", or "*").
	Agents, Workflows []string
	// Tools, when set, is one more level of every permission chain of an
	// exposed run, below the global one (delegation.Request.Tools).
	Tools *permissions.Rules
	// Policy decides which agents may run at all (the globally disabled
	// list); an agent it refuses is not exposed whatever the patterns say.
	Policy permissions.Delegation
}

// ExposesAgent reports whether agent may be run from outside: a pattern
// names it, it is enabled, and the global policy does not disable it.
func (x Exposure) ExposesAgent(a registry.Agent) bool {
	return a.Enabled && matchesAny(x.Agents, a.Name) && x.Policy.Runnable(a.Permissions()).Allowed
}

// ExposesWorkflow reports whether the workflow named name may be run from outside.
func (x Exposure) ExposesWorkflow(name string) bool { return matchesAny(x.Workflows, name) }

// ExposedAgents are the agents of snap that outside tools may run, sorted
// by name.
func (x Exposure) ExposedAgents(snap *registry.Snapshot) []registry.Agent {
	var out []registry.Agent
	if len(x.Agents) == 0 {
		return nil
	}
	for _, a := range snap.Agents() {
		if x.ExposesAgent(a) {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b registry.Agent) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Request fills what every outside run shares: the exposure's permission
// level and the caller. The task carries context, when given, after it.
func (x Exposure) Request(agent, task, context string, caller Caller, traceparent string) RunRequest {
	return RunRequest{Agent: agent, Task: TaskWithContext(task, context), Tools: x.Tools, Caller: &caller, TraceParent: traceparent}
}

// TaskWithContext is the first message of a run asked for with a task and
// the caller's context (MCP's and the API's context argument, the other
// parts of an A2A message): the task, then the context under a heading,
// so the trace shows exactly what the agent was given.
func TaskWithContext(task, context string) string {
	context = strings.TrimSpace(context)
	if context == "" {
		return task
	}
	return task + "\n\nContext:\n" + context
}

func matchesAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if permissions.Match(p, name) {
			return true
		}
	}
	return false
}
