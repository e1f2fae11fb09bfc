package shell

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// A pids cgroup is the process cap where agentry may create one (it runs as
// root, the usual case in containers and CI, where RLIMIT_NPROC does not
// bind). The kernel then refuses the fork past the cap, however fast a fork
// bomb forks: a watchdog alone cannot promise that, since thousands of
// runnable processes starve it (measured: a bomb reached the machine's PID
// limit before a 10 ms poll got to run). Elsewhere the watchdog is the cap.

// pidsGroup is one command's pids cgroup.
type pidsGroup struct{ dir string }

var groupSeq atomic.Int64

// pidsParent is the folder new groups are made in, or "" when this process
// cannot make one: cgroup v1's pids hierarchy below agentry's own group, or
// the root of a cgroup v2 hierarchy that offers pids (a v2 group holding
// processes may not have children).
var pidsParent = sync.OnceValue(func() string {
	for _, dir := range pidsCandidates() {
		probe := filepath.Join(dir, fmt.Sprintf("agentry-probe-%d", os.Getpid()))
		if os.Mkdir(probe, 0o755) == nil {
			os.Remove(probe)
			sweep(dir)
			return dir
		}
	}
	return ""
})

// sweep deletes the groups of agentry processes that are gone: a process
// that exits right after a command leaves its last group to the next one.
func sweep(parent string) {
	dirs, _ := filepath.Glob(filepath.Join(parent, "agentry-*-*"))
	for _, d := range dirs {
		pid, err := strconv.Atoi(strings.Split(filepath.Base(d), "-")[1])
		if err != nil || pid == os.Getpid() || syscall.Kill(pid, 0) == nil {
			continue
		}
		(&pidsGroup{dir: d}).tryRemove()
	}
}

// pidsCandidates lists where a pids group could go, from /proc/self/cgroup.
func pidsCandidates() []string {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case strings.Contains(","+parts[1]+",", ",pids,"):
			out = append(out, filepath.Join("/sys/fs/cgroup/pids", parts[2]))
		case parts[0] == "0" && parts[1] == "" && parts[2] == "/":
			root := "/sys/fs/cgroup"
			if b, err := os.ReadFile(filepath.Join(root, "cgroup.controllers")); err == nil && bytes.Contains(b, []byte("pids")) {
				os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("+pids"), 0)
				out = append(out, root)
			}
		}
	}
	return out
}

// newPidsGroup makes a group that allows at most max processes.
func newPidsGroup(max int) (*pidsGroup, error) {
	parent := pidsParent()
	if parent == "" {
		return nil, errors.New("no writable pids cgroup")
	}
	g := &pidsGroup{dir: filepath.Join(parent, fmt.Sprintf("agentry-%d-%d", os.Getpid(), groupSeq.Add(1)))}
	if err := os.Mkdir(g.dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(g.dir, "pids.max"), []byte(strconv.Itoa(max)), 0); err != nil {
		os.Remove(g.dir)
		return nil, err
	}
	return g, nil
}

// wrap makes argv join the group before it runs: a shell writes its own PID
// to cgroup.procs and execs argv, so every process argv starts is counted
// from its first fork on.
func (g *pidsGroup) wrap(sh string, argv []string) []string {
	return append([]string{sh, "-c", `echo $$ > "$0" && exec "$@"`, filepath.Join(g.dir, "cgroup.procs")}, argv...)
}

// refused reports whether the kernel refused a fork for the cap.
func (g *pidsGroup) refused() bool {
	b, err := os.ReadFile(filepath.Join(g.dir, "pids.events"))
	if err != nil {
		return false
	}
	v, ok := bytes.CutPrefix(bytes.TrimSpace(b), []byte("max "))
	return ok && string(v) != "0"
}

// kill sends SIGKILL to every process in the group.
func (g *pidsGroup) kill() {
	b, _ := os.ReadFile(filepath.Join(g.dir, "cgroup.procs"))
	for _, f := range bytes.Fields(b) {
		if pid, err := strconv.Atoi(string(f)); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// remove kills what is left in the group and deletes it. Killed processes
// take a moment to leave the group; rather than make the caller wait, a
// group that is still busy is deleted in the background.
func (g *pidsGroup) remove() {
	if g.tryRemove() {
		return
	}
	go func() {
		for range 400 {
			time.Sleep(5 * time.Millisecond)
			if g.tryRemove() {
				return
			}
		}
	}()
}

func (g *pidsGroup) tryRemove() bool {
	g.kill()
	err := os.Remove(g.dir)
	return err == nil || errors.Is(err, os.ErrNotExist)
}
