package folder

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agentry/agentry/registry"
)

// BenchmarkWriteToUpdate measures how long after a file is written by
// another program (os.WriteFile, not Folder.Write) the registry serves it,
// with the default debounce, in a folder of 100 agents. It reports the
// median and mean in ms.
func BenchmarkWriteToUpdate(b *testing.B) {
	dir := b.TempDir()
	for i := range 100 {
		writeFile(b, dir, fmt.Sprintf("team-%d/agent-%03d.md", i%5, i), agentText(fmt.Sprintf("agent-%03d", i), "idle"))
	}
	reg := registry.New(nil)
	f, err := Open(dir, reg, registry.Options{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	ch, cancel := reg.Subscribe()
	defer cancel()
	var took []time.Duration
	i := 0
	for b.Loop() {
		i++
		want := fmt.Sprintf("edit %d", i)
		start := time.Now()
		writeFile(b, dir, "team-0/agent-000.md", agentText("agent-000", want))
		deadline := time.After(waitLimit)
		for description(reg.Snapshot(), "agent-000") != want {
			select {
			case <-ch:
			case <-deadline:
				b.Fatalf("edit %d never reached the registry", i)
			}
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	var sum time.Duration
	for _, d := range took {
		sum += d
	}
	b.ReportMetric(ms(took[len(took)/2]), "median-ms")
	b.ReportMetric(ms(sum/time.Duration(len(took))), "mean-ms")
	b.ReportMetric(ms(took[len(took)*9/10]), "p90-ms")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
