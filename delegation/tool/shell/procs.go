package shell

import (
	"bytes"
	"os"
	"strconv"
)

// descendants returns the processes below root (not root itself), at most
// limit+1 of them, by one scan of /proc: the kernel here may lack the
// children files, and a scan also finds processes whose parent has died and
// that were reparented to the sandbox's PID 1.
func descendants(root, limit int) []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	parent := make(map[int]int, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if pp, ok := ppid(pid); ok {
			parent[pid] = pp
		}
	}
	children := make(map[int][]int, len(parent))
	for pid, pp := range parent {
		children[pp] = append(children[pp], pid)
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 && len(out) <= limit {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// ppid reads the parent of pid from /proc/PID/stat; the command name may
// hold spaces and parentheses, so the fields are read after its last ")".
func ppid(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+4 > len(b) {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	pp, err := strconv.Atoi(string(f[1]))
	return pp, err == nil
}

// comm is the command name of pid.
func comm(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return string(bytes.TrimSpace(b))
}
