package core

import (
	"log/slog"

	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/trace/approval"
)

// Workflows is the live workflows catalog: its snapshot and a signal when
// it changes. *workflow.Catalog satisfies it.
type Workflows interface {
	Snapshot() *workflow.Set
	Subscribe() (<-chan struct{}, func())
}

// Door is what an edge that outside tools call (MCP, A2A) needs: what is
// exposed, how its runs start, and where they are followed. Both doors
// start runs through its StartAgent and StartWorkflow, so a run is the
// same run whichever door it came through. Agents, Runner, Live and Store
// are required.
type Door struct {
	Agents Registry
	// Expose says which agents and workflows outside tools may run, and
	// the permission level their runs take; its zero value exposes none.
	Expose Exposure
	// Runner starts agent runs (the same Runner as the web's start form).
	Runner Runner
	// Workflows and WorkflowRunner, when both set, serve the exposed
	// workflows too.
	Workflows      Workflows
	WorkflowRunner WorkflowRunner
	// Live keeps the runs until they end, so the UI's Cancel reaches them.
	Live  *Live
	Store WatchStore
	// Approvals, when set, is where a run's asks wait (the web and
	// `agentry approvals` answer them); a door shows its caller what waits.
	Approvals approval.Store
	// Version is agentry's version, which the door announces.
	Version string
	Log     *slog.Logger
}

// StartAgent starts a run of exposed agent for caller: the task with its
// context, the exposure's permission level, the caller and its
// traceparent on the root span.
func (d Door) StartAgent(agent, task, context string, caller Caller, traceparent string) (Execution, error) {
	return d.Live.Start(d.Runner, d.Expose.Request(agent, task, context, caller, traceparent))
}

// StartWorkflow starts a run of exposed workflow wf for caller with its
// given inputs (resolved here: a missing, unknown or mistyped one is an
// error and starts nothing), as StartAgent starts an agent's.
func (d Door) StartWorkflow(wf *workflow.Workflow, given map[string]any, caller Caller, traceparent string) (Execution, error) {
	inputs, err := workflow.ResolveInputs(wf, given)
	if err != nil {
		return nil, err
	}
	return d.Live.StartWorkflow(d.WorkflowRunner, d.Expose.WorkflowRequest(wf, inputs, caller, traceparent))
}

// ServesWorkflows reports whether the door runs workflows at all.
func (d Door) ServesWorkflows() bool { return d.Workflows != nil && d.WorkflowRunner != nil }

// ExposedWorkflows are the workflows the door serves, sorted by name.
func (d Door) ExposedWorkflows() []*workflow.Workflow {
	if !d.ServesWorkflows() {
		return nil
	}
	return d.Expose.ExposedWorkflows(d.Workflows.Snapshot())
}

// ExposedWorkflow is the exposed workflow named name, as it is now.
func (d Door) ExposedWorkflow(name string) (*workflow.Workflow, bool) {
	for _, wf := range d.ExposedWorkflows() {
		if wf.Name == name {
			return wf, true
		}
	}
	return nil, false
}
