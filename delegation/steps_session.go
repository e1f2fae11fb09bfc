package delegation

import (
	"context"
	"fmt"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// The steps of a Session (a workflow run's host) for an engine that
// persists between steps: the workflow engine itself runs in one step, and
// each agent it invokes is opened here and played by the engine's driver of
// the loop like any delegation. Span IDs depend on the key alone, so a
// workflow run replayed after a lost worker rewrites its spans.

// Open opens an invocation of agent on task under span parent of run
// runID, as Session.Invoke does, and returns it as a Frame (with the agent
// itself: a workflow's inline agents are in no agents folder).
func (s *Steps) Open(ctx context.Context, key Key, runID, runModel, parent string, agent registry.Agent, task string) (Frame, error) {
	rn := s.run(key, runID, runModel)
	rn.limits = s.rt.cfg.Limits
	m, err := rn.models.forAgent(&agent, nil)
	if err != nil {
		return Frame{}, fmt.Errorf("agent %s: %v", agent.Name, err)
	}
	inv := rn.newInvocation(&child{agent: agent, model: m, task: task, mode: registry.ContextTaskOnly, passed: task, parentID: parent})
	f := frame(inv, runID, runModel, []string{agent.Name}, nil)
	f.Inline = &agent
	f.Caps, f.FlowStep = s.FlowCaps(), true
	return f, nil
}

// FlowCaps are the run-wide caps a workflow run counts over the agents its
// steps invoke, as a Session does in-process: max_concurrent,
// max_agents_per_run, token_budget and the conversation window.
func (s *Steps) FlowCaps() RunCaps {
	c := RunCaps{MaxConcurrent: s.rt.cfg.MaxConcurrent, MaxAgents: s.rt.cfg.MaxAgentsPerRun, TokenBudget: s.rt.cfg.TokenBudget}
	if l := s.rt.cfg.Limits; l.WindowCalls > 0 && l.Window > 0 {
		c.WindowCalls, c.Window = l.WindowCalls, l.Window
	}
	return c
}

// StartSpan opens a span of run runID whose ID depends on key alone.
func (s *Steps) StartSpan(key Key, runID string, kind trace.Kind, name, parent string, attrs map[string]any) SpanRef {
	return SpanRef{s.run(key, runID, "").startSpan(kind, name, parent, "", 0, attrs)}
}

// RecordRun records run as it is.
func (s *Steps) RecordRun(run trace.Run) { s.rt.cfg.Sink.RecordRun(run) }

// Agent returns the agent of that name from the current agents folder.
func (s *Steps) Agent(name string) (registry.Agent, bool) { return s.rt.snapshot().Agent(name) }
