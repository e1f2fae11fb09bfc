package core

import (
	"time"

	"github.com/agentry/agentry/registry"
)

// awaitTimeout bounds how long a handler waits for the registry to see a
// file it just wrote, so what it answers next shows the new version.
const awaitTimeout = 3 * time.Second

// Registry is the live registry: its snapshot and a signal when it
// changes. *registry.Registry satisfies it.
type Registry interface {
	Snapshot() *registry.Snapshot
	Subscribe() (<-chan struct{}, func())
}

// AwaitFile waits until reg holds path with hash ("" = until path is
// gone), stop closes, or awaitTimeout passes. Writers return before the
// folder watcher has reloaded, and the page (or the API's answer) that
// follows a write must not show the old version.
func AwaitFile(reg Registry, stop <-chan struct{}, path, hash string) {
	changes, cancel := reg.Subscribe()
	defer cancel()
	deadline := time.NewTimer(awaitTimeout)
	defer deadline.Stop()
	for {
		f, ok := reg.Snapshot().File(path)
		if hash == "" && !ok || ok && f.Hash == hash {
			return
		}
		select {
		case <-changes:
		case <-deadline.C:
			return
		case <-stop:
			return
		}
	}
}
