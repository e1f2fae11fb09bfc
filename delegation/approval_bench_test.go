package delegation

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
)

// BenchmarkToolCallAsk measures what the ask check adds to a tool call in
// the runtime: runs of one agent making 20 filesystem.read_file calls with
// no ask rules, with ask rules that match none of the calls, and with an
// ask rule on the tool itself answered "for this run" by a control.Asker (the
// first call asks, the other 19 pass on that answer). It reports the
// median time per tool call over the runs.
func BenchmarkToolCallAsk(b *testing.B) {
	approveForRun := control.AskerFunc(func(ctx context.Context, a approval.Approval) (approval.Answer, bool) {
		return approval.Answer{Approve: true, ForRun: true, By: "bench", At: time.Now()}, true
	})
	for _, c := range []struct {
		name  string
		ask   []string
		asker control.Asker
	}{
		{"no-ask-rules", nil, nil},
		{"ask-rules-no-match", []string{"filesystem.write_*", "shell.run", "shell.run(git push *)", "web.fetch"}, nil},
		{"asked-once-approved-for-run", []string{"filesystem.read_file"}, approveForRun},
	} {
		b.Run(c.name, func(b *testing.B) {
			rt := hookBenchRuntime(b, nil)
			rt.cfg.GlobalTools = permissions.Rules{Ask: c.ask}
			rt.cfg.Asker = c.asker
			var per []time.Duration
			for b.Loop() {
				start := time.Now()
				res, err := rt.Run(context.Background(), Request{Agent: "reader", Task: "read"})
				if err != nil || res.Status != trace.StatusOK {
					b.Fatalf("run = %+v, %v", res, err)
				}
				per = append(per, time.Since(start)/toolCalls)
			}
			sort.Slice(per, func(i, j int) bool { return per[i] < per[j] })
			b.ReportMetric(float64(per[len(per)/2].Nanoseconds())/1e3, "µs/tool_call-median")
		})
	}
}
