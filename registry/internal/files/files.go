// Package files is what registry (agent files) and registry/skills (skills
// and commands) share about reading a folder: which paths are read at all
// (Plain) and how a batch of files is read and parsed at once (Parallel).
// It imports nothing of agentry, so both can use it.
package files

import (
	"runtime"
	"strings"
	"sync"
)

// Plain reports whether no part of a slash path is hidden or
// node_modules.
func Plain(p string) bool {
	for part := range strings.SplitSeq(p, "/") {
		if strings.HasPrefix(part, ".") || part == "node_modules" {
			return false
		}
	}
	return true
}

// Parallel calls fn(0) … fn(n-1) on GOMAXPROCS goroutines and waits for
// them; each i is given once.
func Parallel(n int, fn func(i int)) {
	var wg sync.WaitGroup
	work := make(chan int)
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := range work {
				fn(i)
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
}
