package workflow

import (
	"maps"
	"slices"
)

// check verifies what references what: agents, inputs, steps and store_as
// names, and builds each step's dependencies. Every reference must point
// to an earlier step, so the graph is acyclic by construction; a reference
// to the step itself or to a later one is reported as the cycle it would be.
func (l *loader) check() {
	wf := l.wf
	stepIdx := map[string]int{}
	storeIdx := map[string]int{}
	for i, s := range wf.Steps {
		stepIdx[s.ID] = i
	}
	for i, s := range wf.Steps {
		l.checkShape(s)
		l.checkAgents(s)
		deps := map[int]bool{}
		if s.AllPrior {
			for j := range i {
				deps[j] = true
			}
		}
		for _, t := range l.templatesOf(s) {
			l.checkRefs(s, t.refs, t.Line, stepIdx, storeIdx, deps, t == loopFeedback(s))
		}
		if c := s.Condition; c != nil && c.Eval != "" {
			prog, r, err := compileCondition(c.Eval)
			if err != nil {
				l.errf(c.Line, "step %s condition: %v", s.ID, err)
			} else {
				c.program = prog
				l.checkRefs(s, r, c.Line, stepIdx, storeIdx, deps, false)
			}
			l.route(s, c.True, c.Line, stepIdx)
			l.route(s, c.False, c.Line, stepIdx)
		}
		s.deps = slices.Sorted(maps.Keys(deps))
		if s.Output.StoreAs != "" {
			if _, dup := storeIdx[s.Output.StoreAs]; dup {
				l.errf(s.Line, "store_as %q is used twice", s.Output.StoreAs)
			}
			if _, clash := stepIdx[s.Output.StoreAs]; clash && s.Output.StoreAs != s.ID {
				l.warnf(s.Line, "store_as %q is also a step id", s.Output.StoreAs)
			}
			storeIdx[s.Output.StoreAs] = i
		}
	}
	for _, s := range wf.Steps {
		if s.gate >= 0 && !slices.Contains(s.deps, s.gate) {
			s.deps = append(s.deps, s.gate)
			slices.Sort(s.deps)
		}
	}
	l.unusedAgents(stepIdx, storeIdx)
}

// unusedAgents warns about inline agents no step runs, and still checks
// their prompts' names, so a typo is found before the agent is wired in.
func (l *loader) unusedAgents(stepIdx, storeIdx map[string]int) {
	used := map[string]bool{}
	for _, s := range l.wf.Steps {
		for _, id := range l.agentsOf(s) {
			used[id] = true
			if a := l.wf.Agents[id]; a != nil && a.Fallback != "" {
				used[a.Fallback] = true
			}
		}
	}
	for _, id := range l.wf.AgentOrder {
		a := l.wf.Agents[id]
		if used[id] {
			continue
		}
		l.warnf(a.Line, "agent %s is not used by any step", id)
		if a.Prompt == nil {
			continue
		}
		for _, name := range a.Prompt.refs.inputs {
			if !slices.ContainsFunc(l.wf.Inputs, func(in Input) bool { return in.Name == name }) {
				l.errf(a.Prompt.Line, "agent %s: undefined variable inputs.%s", id, name)
			}
		}
		for _, sid := range a.Prompt.refs.steps {
			if _, ok := stepIdx[sid]; !ok {
				l.errf(a.Prompt.Line, "agent %s: undefined variable steps.%s (no such step)", id, sid)
			}
		}
		for _, name := range a.Prompt.refs.names {
			if _, ok := storeIdx[name]; !ok {
				l.errf(a.Prompt.Line, "agent %s: undefined variable %s", id, name)
			}
		}
	}
}

func loopFeedback(s *Step) *Template {
	if s.Loop != nil {
		return s.Loop.FeedbackPath
	}
	return nil
}

// templatesOf lists the templates a step evaluates: its inputs, the
// prompts of the inline agents it runs, a map's over and a loop's feedback.
func (l *loader) templatesOf(s *Step) []*Template {
	var ts []*Template
	add := func(t *Template) {
		if t != nil && !slices.Contains(ts, t) {
			ts = append(ts, t)
		}
	}
	add(s.Input)
	for _, b := range s.Parallel {
		add(b.Input)
	}
	for _, id := range l.agentsOf(s) {
		if a := l.wf.Agents[id]; a != nil {
			add(a.Prompt)
			if fb := l.wf.Agents[a.Fallback]; fb != nil {
				add(fb.Prompt)
			}
		}
	}
	if s.Map != nil {
		add(s.Map.Over)
	}
	add(loopFeedback(s))
	return ts
}

// agentsOf lists the agent IDs a step may run (not conditional targets that are steps).
func (l *loader) agentsOf(s *Step) []string {
	var ids []string
	if s.Agent != "" {
		ids = append(ids, s.Agent)
	}
	for _, b := range s.Parallel {
		ids = append(ids, b.Agent)
	}
	if s.Loop != nil {
		ids = append(ids, s.Loop.Agent, s.Loop.Validator)
	}
	if s.Map != nil {
		ids = append(ids, s.Map.Agent)
		if s.Map.Reduce != "" {
			ids = append(ids, s.Map.Reduce)
		}
	}
	if c := s.Condition; c != nil {
		for _, t := range []string{c.True, c.False} {
			if t != "" && !l.isStep(t) {
				ids = append(ids, t)
			}
		}
	}
	return ids
}

func (l *loader) isStep(id string) bool {
	return slices.ContainsFunc(l.wf.Steps, func(s *Step) bool { return s.ID == id })
}

func (l *loader) knownAgent(id string) bool {
	if _, ok := l.wf.Agents[id]; ok {
		return true
	}
	return l.lookup == nil || l.lookup(id)
}

func (l *loader) checkAgents(s *Step) {
	for _, id := range l.agentsOf(s) {
		if id == "" {
			continue
		}
		if !l.knownAgent(id) {
			line := s.Line
			if id == s.Agent && s.agentLine > 0 {
				line = s.agentLine
			}
			l.errf(line, "step %s: agent %q is neither an inline agent nor in the agents folder", s.ID, id)
			continue
		}
		if a := l.wf.Agents[id]; a != nil && a.Fallback != "" && !l.knownAgent(a.Fallback) {
			l.errf(a.Line, "agent %s: fallback agent %q is not defined", id, a.Fallback)
		}
	}
}

func (l *loader) checkShape(s *Step) {
	switch s.Type {
	case TypeSequential:
		if s.Agent == "" {
			l.errf(s.Line, "sequential step %s needs an agent", s.ID)
		}
	case TypeParallel:
		if len(s.Parallel) == 0 {
			l.errf(s.Line, "parallel step %s needs a parallel list of agents", s.ID)
		}
		if s.WaitN > len(s.Parallel) {
			l.errf(s.Line, "step %s waits for %d agents but runs %d", s.ID, s.WaitN, len(s.Parallel))
		}
		keys := map[string]bool{}
		for _, b := range s.Parallel {
			if keys[b.OutputKey] {
				l.errf(b.Line, "step %s: output_key %q is used twice", s.ID, b.OutputKey)
			}
			keys[b.OutputKey] = true
		}
	case TypeConditional:
		if s.Condition == nil {
			l.errf(s.Line, "conditional step %s needs a condition", s.ID)
		} else if s.Condition.True == "" && s.Condition.False == "" {
			l.errf(s.Condition.Line, "step %s: the condition routes nowhere (give true and/or false)", s.ID)
		}
	case TypeLoop:
		if s.Loop == nil {
			l.errf(s.Line, "loop step %s needs a loop", s.ID)
		}
	case TypeMap:
		if s.Map == nil {
			l.errf(s.Line, "map step %s needs a map", s.ID)
		}
	}
}

// route gates a conditional's target step on it.
func (l *loader) route(s *Step, target string, line int, stepIdx map[string]int) {
	j, ok := stepIdx[target]
	if !ok {
		return
	}
	t := l.wf.Steps[j]
	switch {
	case j <= s.index:
		l.errf(line, "step %s routes to step %s, which is not after it (a cycle)", s.ID, target)
	case t.gate >= 0 && t.gate != s.index:
		l.errf(line, "step %s is routed to by two conditionals (%s and %s)", target, l.wf.Steps[t.gate].ID, s.ID)
	default:
		t.gate = s.index
	}
}

func (l *loader) checkRefs(s *Step, r refs, line int, stepIdx, storeIdx map[string]int, deps map[int]bool, feedback bool) {
	if line == 0 {
		line = s.Line
	}
	for _, name := range r.inputs {
		if !slices.ContainsFunc(l.wf.Inputs, func(in Input) bool { return in.Name == name }) {
			l.errf(line, "step %s: undefined variable inputs.%s (declare it under inputs)", s.ID, name)
		}
	}
	for _, id := range r.steps {
		j, ok := stepIdx[id]
		switch {
		case !ok:
			l.errf(line, "step %s: undefined variable steps.%s (no such step)", s.ID, id)
		case j == s.index && feedback:
		case j == s.index:
			l.errf(line, "step %s refers to its own output (a cycle)", s.ID)
		case j > s.index:
			l.errf(line, "step %s refers to step %s, which comes later (a cycle)", s.ID, id)
		default:
			deps[j] = true
		}
	}
	for _, name := range r.names {
		j, ok := storeIdx[name]
		switch {
		case ok:
			deps[j] = true
		case l.storedLater(name, s.index):
			l.errf(line, "step %s refers to %s, which a later step stores (a cycle)", s.ID, name)
		default:
			l.errf(line, "step %s: undefined variable %s", s.ID, name)
		}
	}
}

func (l *loader) storedLater(name string, i int) bool {
	for _, s := range l.wf.Steps[i:] {
		if s.Output.StoreAs == name {
			return true
		}
	}
	return false
}
