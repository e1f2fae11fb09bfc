package runs

import (
	"testing"

	"github.com/agentry/agentry/trace"
)

func TestTheRollupShowsEachAgentsCacheHitRate(t *testing.T) {
	root := sp("r", "", trace.KindInvokeAgent, "lead", 0, 10, trace.StatusOK)
	c1 := sp("c1", "r", trace.KindChat, "lead", 0, 5, trace.StatusOK)
	c1.InputTokens, c1.Attributes = 1000, map[string]any{attrCachedInputTokens: float64(600)}
	c2 := sp("c2", "r", trace.KindChat, "lead", 5, 10, trace.StatusOK)
	c2.InputTokens, c2.Attributes = 1000, map[string]any{attrCachedInputTokens: int64(900)}
	child := sp("k", "r", trace.KindInvokeAgent, "helper", 1, 4, trace.StatusOK)
	c3 := sp("c3", "k", trace.KindChat, "helper", 1, 4, trace.StatusOK)
	c3.InputTokens = 500
	tl := BuildTimeline(trace.Run{ID: "run", Agent: "lead", Status: trace.StatusOK, StartedAt: ms(0), EndedAt: ms(10)},
		[]trace.Span{root, c1, c2, child, c3}, ms(10))
	got := map[string]string{}
	for _, r := range tl.Rollup {
		got[r.Agent] = r.CacheHits
	}
	if got["lead"] != "75%" || got["helper"] != "" {
		t.Fatalf("cache hits = %v, want lead 75%% and none for helper", got)
	}
}
