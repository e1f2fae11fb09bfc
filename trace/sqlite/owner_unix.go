//go:build unix

package sqlite

import (
	"errors"
	"syscall"
)

// processState reports whether pid exists, with its /proc details where the
// platform has them.
func processState(pid int) (procState, bool) {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return procState{}, false
	}
	st, _ := readProcStat(pid)
	return st, true
}
