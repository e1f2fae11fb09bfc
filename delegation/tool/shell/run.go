package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Options are the per-call settings of Run.
type Options struct {
	// Timeout ends the command; 0 means Config.Timeout.
	Timeout time.Duration
	// Network leaves the network reachable (the shell.network capability).
	Network bool
}

// Run runs command and waits for it and every process it started. An error
// means the command could not be started; how it ended is in the Result.
func (s *Shell) Run(ctx context.Context, command string, o Options) (Result, error) {
	if o.Timeout <= 0 {
		o.Timeout = s.cfg.Timeout
	}
	argv, err := s.argv(command, o.Network)
	if err != nil {
		return Result{}, err
	}
	group, gerr := newPidsGroup(s.cfg.MaxProcs)
	if gerr == nil {
		defer group.remove()
		argv = group.wrap(s.sh, argv)
	}
	p, err := s.start(argv, o.Network)
	if err != nil {
		return Result{}, err
	}
	killed, waitErr := s.supervise(ctx, p.cmd.Process.Pid, o.Timeout, s.overCap(p, group), p.done)
	p.killLeftovers(group)
	p.stopReading()
	return p.result(killed, waitErr)
}

// process is a started command: its output is being read into two
// captures, and done receives what Wait returned.
type process struct {
	cmd            *exec.Cmd
	info           *sandboxInfo // nil without a sandbox
	outR, errR     *os.File
	stdout, stderr *capture
	readers        sync.WaitGroup
	done           chan error
}

// start starts argv in the workspace, with the command's environment and in
// a process group of its own, its output on two pipes (and, in a sandbox,
// bwrap's info pipe and seccomp filter), then reads the output and waits
// for it in the background.
func (s *Shell) start(argv []string, network bool) (*process, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.cfg.Workspace
	cmd.Env = s.env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(outR, outW)
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	var info *sandboxInfo
	if s.cfg.Sandbox != SandboxNone {
		if info, err = withInfo(cmd, network); err != nil {
			closeAll(outR, outW, errR, errW)
			return nil, err
		}
	}
	err = cmd.Start()
	closeAll(outW, errW)
	if info != nil {
		info.started(err)
	}
	if err != nil {
		closeAll(outR, errR)
		return nil, fmt.Errorf("start shell: %w", err)
	}
	p := &process{cmd: cmd, info: info, outR: outR, errR: errR, done: make(chan error, 1),
		stdout: &capture{limit: s.cfg.OutputLimit}, stderr: &capture{limit: s.cfg.OutputLimit}}
	p.readers.Go(func() { p.stdout.read(outR) })
	p.readers.Go(func() { p.stderr.read(errR) })
	go func() { p.done <- cmd.Wait() }()
	return p, nil
}

// closeAll closes each file; the errors of closing a pipe tell nothing.
func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// overCap is the watchdog's test that the command passed the process cap:
// a fork the pids cgroup refused; under RLIMIT_NPROC, where the count stops
// at the cap, reaching it (the sign that forks are being refused); else more
// descendants than the cap.
func (s *Shell) overCap(p *process, group *pidsGroup) func() bool {
	switch {
	case group != nil:
		return group.refused
	case p.info != nil:
		return func() bool { return p.info.count(s.cfg.MaxProcs) >= s.cfg.MaxProcs }
	}
	return func() bool { return len(descendants(p.cmd.Process.Pid, s.cfg.MaxProcs)) > s.cfg.MaxProcs }
}

// killLeftovers kills what is left of the command once it has ended: the
// processes in its pids cgroup, and an unsandboxed command's group (a
// sandbox's PID namespace is gone with its PID 1 already).
func (p *process) killLeftovers(group *pidsGroup) {
	if group != nil {
		group.kill()
	}
	if p.info == nil {
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// stopReading waits for the output to be read to its end, for a second at
// most: a process that left the group may still hold a pipe.
func (p *process) stopReading() {
	stop := time.AfterFunc(time.Second, func() { closeAll(p.outR, p.errR) })
	p.readers.Wait()
	stop.Stop()
	closeAll(p.outR, p.errR)
}

// result is how the command ended: its output, and its exit code, or -1
// when it was killed (why is in killed). A wait error other than the
// command's own exit status is an error.
func (p *process) result(killed string, waitErr error) (Result, error) {
	res := Result{Stdout: p.stdout.String(), Stderr: p.stderr.String(), Truncated: p.stdout.truncated() || p.stderr.truncated(), Killed: killed}
	var exit *exec.ExitError
	switch {
	case killed != "":
		res.ExitCode = -1
	case waitErr == nil:
	case errors.As(waitErr, &exit):
		res.ExitCode = exitCode(exit.ProcessState)
	default:
		return Result{}, fmt.Errorf("wait for shell: %w", waitErr)
	}
	return res, nil
}

// exitCode is the command's exit status, 128+N for a death by signal N as a
// shell reports it.
func exitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// supervise waits for the command (done) while enforcing the timeout,
// cancellation and the process cap; killed says why it ended the command.
func (s *Shell) supervise(ctx context.Context, pid int, timeout time.Duration, overCap func() bool, done <-chan error) (killed string, err error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	tick := time.NewTicker(PollInterval)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return "", err
		case <-timer.C:
			return fmt.Sprintf("timeout after %s", timeout), s.terminate(pid, done)
		case <-ctx.Done():
			return "cancelled", s.terminate(pid, done)
		case <-tick.C:
			if overCap() {
				killAll(pid)
				return fmt.Sprintf("reached the cap of %d processes", s.cfg.MaxProcs), <-done
			}
		}
	}
}

// terminate asks every process of the command to end (SIGTERM), then kills
// what is left after the grace period (SIGKILL).
func (s *Shell) terminate(pid int, done <-chan error) error {
	if s.cfg.Sandbox == SandboxNone {
		syscall.Kill(-pid, syscall.SIGTERM)
	}
	for _, p := range descendants(pid, 1<<16) {
		// bwrap's own processes die with the sandbox; terminating them
		// first would skip the command's grace period.
		if comm(p) != "bwrap" {
			syscall.Kill(p, syscall.SIGTERM)
		}
	}
	grace := time.NewTimer(s.cfg.Grace)
	defer grace.Stop()
	select {
	case err := <-done:
		return err
	case <-grace.C:
	}
	killAll(pid)
	return <-done
}

// killAll kills the command's process group and every descendant. Killing
// the outer bwrap also ends the sandbox's PID 1 (--die-with-parent), and
// with it every process in the sandbox's PID namespace.
func killAll(pid int) {
	syscall.Kill(-pid, syscall.SIGKILL)
	syscall.Kill(pid, syscall.SIGKILL)
	for _, p := range descendants(pid, 1<<16) {
		syscall.Kill(p, syscall.SIGKILL)
	}
}

// capture keeps the first limit bytes of a stream and counts the rest.
type capture struct {
	limit int
	buf   []byte
	total int
}

// read reads r to its end, or closes it once DrainLimit bytes past the cap
// were thrown away, so an endless writer gets SIGPIPE.
func (c *capture) read(r io.ReadCloser) {
	chunk := make([]byte, 32<<10)
	for {
		n, err := r.Read(chunk)
		if room := c.limit - len(c.buf); room > 0 {
			c.buf = append(c.buf, chunk[:min(n, room)]...)
		}
		c.total += n
		if err != nil {
			return
		}
		if c.total > c.limit+DrainLimit {
			r.Close()
			return
		}
	}
}

func (c *capture) truncated() bool { return c.total > c.limit }
func (c *capture) String() string  { return string(c.buf) }
