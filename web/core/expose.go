package core

import (
	"slices"
	"strings"

	"github.com/agentry/agentry/delegation/workflow"
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

// WorkflowPrefix starts the name of an exposed workflow's MCP tool and A2A
// endpoint (workflow-NAME), so a workflow and an agent of the same name
// are two tools, two endpoints.
const WorkflowPrefix = "workflow-"

// ExposedWorkflows are the workflows of set that outside tools may run:
// a pattern names them and they loaded (a broken file's last good version
// counts, as it does for the start form), sorted by name.
func (x Exposure) ExposedWorkflows(set *workflow.Set) []*workflow.Workflow {
	var out []*workflow.Workflow
	if len(x.Workflows) == 0 || set == nil {
		return nil
	}
	for _, f := range set.Files() {
		if wf, ok := set.Workflow(f.Path); ok && x.ExposesWorkflow(wf.Name) {
			if named, _ := set.Named(wf.Name); named == wf { // a duplicate name is served once
				out = append(out, wf)
			}
		}
	}
	slices.SortFunc(out, func(a, b *workflow.Workflow) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// WorkflowRequest is Request for a workflow run: the exposure's permission
// level and the caller, with inputs already resolved.
func (x Exposure) WorkflowRequest(wf *workflow.Workflow, inputs map[string]any, caller Caller, traceparent string) WorkflowRunRequest {
	return WorkflowRunRequest{Workflow: wf, Inputs: inputs, Tools: x.Tools, Caller: &caller, TraceParent: traceparent}
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

// NotExposed is the 404 of a door (an A2A endpoint, an MCP tool) asked for
// name, which serves nothing there: no agent of that name (for
// workflow-NAME, no workflow NAME) is exposed, whether or not the folder
// has one. It says so in the words of every other 404 (MissingError).
func NotExposed(name string) error {
	if flow, ok := strings.CutPrefix(name, WorkflowPrefix); ok {
		return NotFound("exposed workflow", flow)
	}
	return NotFound("exposed agent", name)
}
