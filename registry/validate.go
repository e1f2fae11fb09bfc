package registry

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentry/agentry/permissions"
)

// crossCheck finds the problems that involve several files: duplicate
// names, sub-agents that do not exist or are disabled, self-delegation and
// delegation cycles. It runs in time linear in files plus allow entries, so
// a snapshot of thousands of agents rebuilds quickly on every change.
func crossCheck(s *Snapshot, paths []string) map[string][]Problem {
	out := map[string][]Problem{}
	add := func(e *entry, sev string, line int, field, msg string) {
		out[e.path] = append(out[e.path], Problem{File: e.path, Agent: e.served.agent.Name, Severity: sev, Line: max(line, 1), Field: field, Message: msg})
	}
	for name, d := range s.dups {
		e := s.entries[d.Served]
		add(e, SeverityWarning, e.served.facts.nameLine, "name",
			fmt.Sprintf("id %q is also defined by %s; this file is the one used because %s", name, strings.Join(d.Ignored, ", "), d.Reason))
		for _, p := range d.Ignored {
			e := s.entries[p]
			add(e, SeverityError, e.served.facts.nameLine, "name",
				fmt.Sprintf("id %q is already defined by %s, which is the one used because %s; this file is ignored until it has an id of its own", name, d.Served, d.Reason))
		}
	}
	disabled, remote := map[string]bool{}, map[string]bool{}
	for _, n := range s.opts.Disabled {
		disabled[n] = true
	}
	for _, n := range s.opts.Remote {
		remote[n] = true
	}
	for _, p := range paths {
		e := s.entries[p]
		if e.served == nil {
			continue
		}
		v := e.served
		if s.byName[v.agent.Name] == e {
			v = s.served[v.agent.Name]
		}
		checkReferences(e, v, s.served, disabled, remote, add)
	}
	checkCycles(s.agents, s.byName, s.served, add)
	return out
}

type addFunc func(e *entry, sev string, line int, field, msg string)

func checkReferences(e *entry, v *version, served map[string]*version, disabled, remote map[string]bool, add addFunc) {
	a, f := v.agent, v.facts
	for _, r := range f.allow {
		target, line := r.name, r.line
		t := served[target]
		switch {
		case target == a.Name:
			if !a.Subagents.Nested {
				add(e, SeverityError, line, "subagents.allow", fmt.Sprintf("agent %q delegates to itself; set subagents.nested: true to allow it", a.Name))
			}
		case target == permissions.GeneralPurpose:
		case t == nil && remote[target]:
		case t == nil:
			add(e, SeverityWarning, line, "subagents.allow", fmt.Sprintf("subagents.allow names %q, but no agent has that name", target))
		case disabled[target] || !t.agent.Enabled:
			add(e, SeverityWarning, line, "subagents.allow", fmt.Sprintf("subagents.allow names %q, which is disabled", target))
		}
	}
}

// graph is the explicit allow graph among agents that did not opt into
// nesting: the only agents for which a cycle is an error. An agent whose
// tool lists refuse it delegating (disallowedTools: Task, a Claude Code
// list without Task) has no edges.
type graph struct {
	names []string
	index map[string]int
	succ  [][]int
	lines [][]int // lines[v][k] is the allow line of the edge v → succ[v][k]
}

func newGraph(agents []Agent, served map[string]*version) *graph {
	g := &graph{index: make(map[string]int, len(agents))}
	for _, a := range agents {
		if !a.Subagents.Nested {
			g.index[a.Name] = len(g.names)
			g.names = append(g.names, a.Name)
		}
	}
	g.succ, g.lines = make([][]int, len(g.names)), make([][]int, len(g.names))
	for v, name := range g.names {
		sv := served[name]
		if d := sv.agent.Delegation; d.Denied || d.Refused != "" {
			continue // its tool lists refuse it delegating: no edges (its tools warning says so)
		}
		for _, r := range sv.facts.allow {
			w, ok := g.index[r.name]
			if !ok || w == v || slices.Contains(sv.agent.Subagents.Rules.Deny, r.name) {
				continue
			}
			g.succ[v] = append(g.succ[v], w)
			g.lines[v] = append(g.lines[v], r.line)
		}
	}
	return g
}

func checkCycles(agents []Agent, byName map[string]*entry, served map[string]*version, add addFunc) {
	g := newGraph(agents, served)
	for _, scc := range g.components() {
		if len(scc) < 2 {
			continue
		}
		in := map[int]bool{}
		for _, v := range scc {
			in[v] = true
		}
		cycle := g.cycleThrough(slices.Min(scc), in)
		msg := fmt.Sprintf("delegation cycle %s: none of these agents sets subagents.nested: true", g.describe(cycle))
		for _, v := range scc {
			line := 1
			for k, w := range g.succ[v] {
				if in[w] {
					line = g.lines[v][k]
					break
				}
			}
			add(byName[g.names[v]], SeverityError, line, "subagents.allow", msg)
		}
	}
}

// describe writes a cycle as "a → b → a", eliding the middle of long ones
// so a huge cycle does not make a huge message on every member.
func (g *graph) describe(cycle []int) string {
	const keep = 8
	names := make([]string, 0, keep+2)
	for i, v := range cycle {
		if len(cycle) > keep+1 && i == keep-1 {
			names = append(names, fmt.Sprintf("… (%d more)", len(cycle)-keep))
			names = append(names, g.names[cycle[len(cycle)-1]])
			break
		}
		names = append(names, g.names[v])
	}
	return strings.Join(names, " → ")
}

// components returns the strongly connected components (Tarjan).
func (g *graph) components() [][]int {
	n := len(g.names)
	index, low := make([]int, n), make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var out [][]int
	next := 0
	var visit func(v int)
	visit = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range g.succ[v] {
			if index[w] < 0 {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var scc []int
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			scc = append(scc, w)
			if w == v {
				break
			}
		}
		out = append(out, scc)
	}
	for v := range n {
		if index[v] < 0 {
			visit(v)
		}
	}
	return out
}

// cycleThrough returns a shortest cycle start → … → start inside the
// component in (breadth-first).
func (g *graph) cycleThrough(start int, in map[int]bool) []int {
	parent := map[int]int{start: -1}
	queue := []int{start}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range g.succ[v] {
			if w == start {
				var path []int
				for u := v; u != -1; u = parent[u] {
					path = append(path, u)
				}
				slices.Reverse(path)
				return append(path, start)
			}
			if _, seen := parent[w]; !seen && in[w] {
				parent[w] = v
				queue = append(queue, w)
			}
		}
	}
	return []int{start, start}
}
