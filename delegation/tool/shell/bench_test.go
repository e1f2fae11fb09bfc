package shell

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

// BenchmarkRunOverhead measures what the sandbox adds to a command: shell.run
// of "true" against a plain `bash -c true`. The overhead_ms metric is the
// difference per command (target: at most 15 ms).
func BenchmarkRunOverhead(b *testing.B) {
	s, err := Open(Config{Workspace: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	var plain, sandboxed time.Duration
	for b.Loop() {
		t0 := time.Now()
		if err := exec.Command(s.bash, "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if res, err := s.Run(context.Background(), "true", Options{}); err != nil || res.ExitCode != 0 {
			b.Fatal(res, err)
		}
		plain += t1.Sub(t0)
		sandboxed += time.Since(t1)
	}
	n := float64(b.N)
	b.ReportMetric(float64(plain.Microseconds())/n/1000, "plain_ms/op")
	b.ReportMetric(float64(sandboxed.Microseconds())/n/1000, "shell_run_ms/op")
	b.ReportMetric(float64((sandboxed-plain).Microseconds())/n/1000, "overhead_ms/op")
}
