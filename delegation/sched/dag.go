package sched

import (
	"fmt"
	"strings"
)

// Node is one delegate call of a turn as its DAG sees it: its id (""
// when it has none), the ids it depends on, and why it is refused before
// it starts ("" while it may start).
type Node struct {
	ID        string
	DependsOn []string
	Err       string
}

// Link links one turn's calls into a DAG: deps[i] are the calls call i
// waits for. A call whose id is taken by an earlier one, whose depends_on
// names no call of the turn or itself, or that lies on a cycle gets its
// Err set (the first reason found); its links stay, so its dependents are
// skipped when it is refused. Link is pure: the same nodes give the same
// DAG.
func Link(nodes []Node) (deps [][]int) {
	byID := make(map[string]int, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		if n.ID == "" || n.Err != "" {
			continue
		}
		if _, dup := byID[n.ID]; dup {
			n.Err = fmt.Sprintf("id %q is used by another call in this turn", n.ID)
			continue
		}
		byID[n.ID] = i
	}
	deps = make([][]int, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		for _, id := range n.DependsOn {
			j, ok := byID[id]
			switch {
			case !ok && n.Err == "":
				n.Err = fmt.Sprintf("depends_on names %q, which no call in this turn has as id", id)
			case ok && j != i:
				deps[i] = append(deps[i], j)
			case ok && n.Err == "":
				n.Err = fmt.Sprintf("call %q depends on itself", id)
			}
		}
	}
	for i := range nodes {
		if nodes[i].Err == "" {
			if cyc := Cycle(i, func(n int) []int { return deps[n] }, func(n int) string { return nodes[n].ID }); cyc != "" {
				nodes[i].Err = "dependency cycle rejected: " + cyc
			}
		}
	}
	return deps
}

// Cycle returns "a → b → a" (a depends on b, which depends on a) when
// start lies on a dependency cycle, else "". deps gives the nodes a node
// depends on, name how the path shows one. Link checks a turn's delegate
// calls with it, package orchestrator an orchestrator's dispatches.
func Cycle[N comparable](start N, deps func(N) []N, name func(N) string) string {
	seen := map[N]bool{}
	var find func(n N) []string
	find = func(n N) []string {
		for _, d := range deps(n) {
			if d == start {
				return []string{name(start)}
			}
			if !seen[d] {
				seen[d] = true
				if p := find(d); p != nil {
					return append([]string{name(d)}, p...)
				}
			}
		}
		return nil
	}
	p := find(start)
	if p == nil {
		return ""
	}
	return strings.Join(append([]string{name(start)}, p...), " → ")
}
