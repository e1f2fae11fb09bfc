package sqlite

import (
	"os"
	"strconv"
	"strings"
)

// owner identifies a process: host, pid, and the process's start time as the
// kernel reports it, so a pid reused by another process is not mistaken for
// the one that wrote a run.
type owner struct {
	host  string
	pid   int
	start string // "" where the platform does not tell
}

// self returns the owner identity of this process.
func self() owner {
	host, _ := os.Hostname()
	pid := os.Getpid()
	start, _ := procStart(pid)
	return owner{host: host, pid: pid, start: start}
}

// alive reports whether o may still be running. A process on another host,
// or one this platform cannot check, counts as alive: when in doubt a run is
// left alone rather than marked interrupted under a live writer.
func (me owner) alive(o owner) bool {
	if o.host != me.host || o.pid <= 0 {
		return true
	}
	if o.pid == me.pid {
		return o.start == me.start
	}
	state, ok := processState(o.pid)
	if !ok {
		return false
	}
	if state.zombie {
		return false
	}
	return o.start == "" || state.start == "" || state.start == o.start
}

type procState struct {
	start  string
	zombie bool
}

// procStart returns the start time of a process from /proc, where it exists.
func procStart(pid int) (string, bool) {
	st, ok := readProcStat(pid)
	return st.start, ok
}

// readProcStat parses /proc/PID/stat: the state (field 3) and the start time
// in clock ticks since boot (field 22). The command name, field 2, may hold
// spaces and parentheses, so fields are counted after its last ')'.
func readProcStat(pid int) (procState, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procState{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procState{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return procState{}, false
	}
	return procState{start: f[19], zombie: f[0] == "Z" || f[0] == "X"}, true
}
