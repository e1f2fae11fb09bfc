//go:build unix

package workflow_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used (user and system), so a
// benchmark can report its cost apart from the wall time a loaded machine
// adds.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
