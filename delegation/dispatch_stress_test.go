//go:build stress

package delegation

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
)

// stressDispatches is how many agents one orchestrator turn dispatches in
// TestStressDispatchesWithRandomSameTurnDependencies.
const stressDispatches = 200

// TestStressDispatchesWithRandomSameTurnDependencies has an orchestrator
// dispatch 200 agents in one turn, in a random order, each depending on a
// few random others of the same turn (named before or after it, so
// dependencies point forward and backward), some of them failing, under
// seed 001's per-turn cap of 8 agents at once; and checks that nothing
// panics, that every dependent started after its dependencies ended or was
// skipped for a failed one, and that no span of the finished run is left
// running (issue 30).
func TestStressDispatchesWithRandomSameTurnDependencies(t *testing.T) {
	for round := range 5 {
		seed := uint64(time.Now().UnixNano()) + uint64(round)
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) { stressDispatchRound(t, seed) })
	}
}

func stressDispatchRound(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0))
	rank := r.Perm(stressDispatches) // the DAG's order; the calls come in another
	byRank := make([]int, stressDispatches)
	for i, k := range rank {
		byRank[k] = i
	}
	deps := make([][]int, stressDispatches)
	fails := make([]bool, stressDispatches)
	var sc strings.Builder
	sc.WriteString("orch:\n  - calls:\n")
	for _, i := range r.Perm(stressDispatches) {
		for n := r.IntN(4); n > 0 && rank[i] > 0; n-- {
			if d := byRank[r.IntN(rank[i])]; !containsInt(deps[i], d) {
				deps[i] = append(deps[i], d)
			}
		}
		var ids []string
		for _, d := range deps[i] {
			ids = append(ids, fmt.Sprintf("a%d", d))
		}
		fmt.Fprintf(&sc, "      - {tool: dispatch_agent, args: {agent_id: a%d, mission: m, skills: [filesystem], depends_on: [%s]}}\n", i, strings.Join(ids, ", "))
	}
	sc.WriteString("  - calls: [{tool: get_agent_results}]\n  - say: done\n  - say: done\n")
	for i := range stressDispatches {
		fails[i] = r.IntN(20) == 0
		say := fmt.Sprintf("a%d done", i)
		if fails[i] {
			say = ""
		}
		fmt.Fprintf(&sc, "a%d: [{latency: %dms, say: %q}]\n", i, r.IntN(3), say)
	}
	f := dispatchSetup(t, map[string]string{"orch": "tools: [filesystem]\nsubagents:\n  dispatch: true\n  max_concurrent: 16\n"}, sc.String(), &recorder{})
	f.rt.cfg.Limits.TurnAgents, f.rt.cfg.Timeout = 8, deadlockGuard
	res := f.run(t, "orch", "x") // fails the test on a span left running
	if res.Status != trace.StatusOK {
		t.Fatalf("run = %s %q", res.Status, res.Error)
	}
	spans := map[string]trace.Span{}
	for _, sp := range f.sink.all() {
		if _, ok := sp.Attributes[AttrPanic]; ok || strings.Contains(sp.Error, "panicked") {
			t.Errorf("span %s panicked: %s", sp.Name, sp.Error)
		}
		if sp.Kind == trace.KindInvokeAgent {
			spans[sp.Agent] = sp
		}
	}
	got := collected(t, f, 0)
	if len(got) != stressDispatches {
		t.Fatalf("%d results, want %d", len(got), stressDispatches)
	}
	bad := map[int]bool{} // failed or skipped
	for _, i := range byRank {
		id := fmt.Sprintf("a%d", i)
		a := got[id]
		blocked := false
		for _, d := range deps[i] {
			blocked = blocked || bad[d]
		}
		switch {
		case blocked:
			if a.Status != "skipped" {
				t.Errorf("%s = %s, want skipped after a failed dependency", id, a.Status)
			}
			bad[i] = true
		case fails[i]:
			if a.Status != "failed" {
				t.Errorf("%s = %s, want failed", id, a.Status)
			}
			bad[i] = true
		case a.Status != "completed":
			t.Errorf("%s = %s %q, want completed", id, a.Status, a.Error)
		default:
			for _, d := range deps[i] {
				if dep := spans[fmt.Sprintf("a%d", d)]; spans[id].StartedAt.Before(dep.EndedAt) {
					t.Errorf("%s started before its dependency a%d ended", id, d)
				}
			}
		}
	}
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
