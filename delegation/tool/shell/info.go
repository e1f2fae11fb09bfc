package shell

import (
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"sync/atomic"
)

// sandboxInfo reads what bwrap reports on its --info-fd: the PID (seen from
// outside) of the sandbox's first process.
type sandboxInfo struct {
	r, w  *os.File
	child atomic.Int64
}

// withInfo gives cmd the pipe bwrap writes its info to, as fd 3.
func withInfo(cmd *exec.Cmd) (*sandboxInfo, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{w}
	return &sandboxInfo{r: r, w: w}, nil
}

// started closes the parent's write end and, when bwrap started, reads its
// report in the background.
func (i *sandboxInfo) started(err error) {
	i.w.Close()
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
