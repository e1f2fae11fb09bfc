package shell

import (
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"sync/atomic"
)

// sandboxInfo holds what bwrap is handed as it starts: the pipe it writes
// its info to (fd 3), from which the PID (seen from outside) of the
// sandbox's first process is read, and the seccomp filter (fd 4).
type sandboxInfo struct {
	r, w   *os.File
	filter *os.File
	child  atomic.Int64
}

// withInfo gives cmd the info pipe as fd 3 and the seccomp filter for the
// network grant as fd 4.
func withInfo(cmd *exec.Cmd, network bool) (*sandboxInfo, error) {
	filter, err := filterFile(network)
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		filter.Close()
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{w, filter}
	return &sandboxInfo{r: r, w: w, filter: filter}, nil
}

// started closes the parent's ends and, when bwrap started, reads its
// report in the background.
func (i *sandboxInfo) started(err error) {
	i.w.Close()
	i.filter.Close()
	if err != nil {
		i.r.Close()
		return
	}
	go func() {
		defer i.r.Close()
		var v struct {
			Child int64 `json:"child-pid"`
		}
		if json.NewDecoder(i.r).Decode(&v) == nil {
			i.child.Store(v.Child)
		}
	}()
}

// count returns how many processes the sandbox holds, counting at most
// limit+1. It lists the sandbox's own /proc (through its first process's
// root), which holds exactly the processes of its PID namespace: one
// directory read, however busy the machine, so a fork bomb is seen early
// and cheaply.
func (i *sandboxInfo) count(limit int) int {
	child := i.child.Load()
	if child == 0 {
		return 0
	}
	d, err := os.Open("/proc/" + strconv.FormatInt(child, 10) + "/root/proc")
	if err != nil {
		return 0
	}
	defer d.Close()
	n := 0
	for n <= limit {
		names, err := d.Readdirnames(256)
		for _, name := range names {
			if name[0] >= '1' && name[0] <= '9' {
				n++
			}
		}
		if err != nil {
			break
		}
	}
	return n
}
