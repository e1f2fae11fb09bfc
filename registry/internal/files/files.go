// Package files is what registry (agent files), registry/skills (skills
// and commands) and registry/folder share about reading a folder: which
// paths are read at all (Plain), which files of a folder are listed (List)
// and how a batch of files is read and parsed at once (Parallel). It
// imports nothing of agentry, so all of them can use it.
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
