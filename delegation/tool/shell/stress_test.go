//go:build stress

package shell

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// TestStressTheCheckerSeesWhatBashRuns runs 10,000 generated command lines
// through the differential check (differential_test.go): every line the
// permission checker accepts runs in the sandbox, and bash must run
// nothing the checker did not see (nor, for a line without conditional
// parts, leave out anything it saw).
func TestStressTheCheckerSeesWhatBashRuns(t *testing.T) {
	const lines, workers = 10000, 2
	var next, accepted atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		d := newDiffer(t)
		r := rand.New(rand.NewPCG(uint64(w), 2024))
		wg.Go(func() {
			for next.Add(1) <= lines && !t.Failed() {
				if d.check(t, generateLine(r)) {
					accepted.Add(1)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d of %d generated lines accepted by the checker and compared with bash", accepted.Load(), lines)
	if accepted.Load() < lines/5 {
		t.Errorf("only %d of %d lines were accepted: the generator no longer exercises the comparison", accepted.Load(), lines)
	}
}
