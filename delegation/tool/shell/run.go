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
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.cfg.Workspace
	cmd.Env = s.env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	outR, outW, err := os.Pipe()
	if err != nil {
		return Result{}, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return Result{}, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	var info *sandboxInfo
	if s.cfg.Sandbox != SandboxNone {
		if info, err = withInfo(cmd, o.Network); err != nil {
			outR.Close()
			outW.Close()
			errR.Close()
			errW.Close()
			return Result{}, err
		}
	}
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if info != nil {
		info.started(err)
	}
	if err != nil {
		outR.Close()
		errR.Close()
		return Result{}, fmt.Errorf("start shell: %w", err)
	}
	stdout, stderr := &capture{limit: s.cfg.OutputLimit}, &capture{limit: s.cfg.OutputLimit}
	var readers sync.WaitGroup
	readers.Go(func() { stdout.read(outR) })
	readers.Go(func() { stderr.read(errR) })
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	overCap := func() bool { return len(descendants(cmd.Process.Pid, s.cfg.MaxProcs)) > s.cfg.MaxProcs }
	switch {
	case group != nil:
		overCap = group.refused
	case info != nil:
		// Under RLIMIT_NPROC the count stops at the cap: reaching it is
		// the sign that forks are being refused.
		overCap = func() bool { return info.count(s.cfg.MaxProcs) >= s.cfg.MaxProcs }
	}
	killed, waitErr := s.supervise(ctx, cmd.Process.Pid, o.Timeout, overCap, done)
	if group != nil {
		group.kill()
	}
	if info == nil {
		// Leftovers of an unsandboxed command's group; a sandbox's PID
		// namespace is gone with its PID 1 already.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	// A process that left the group may still hold a pipe: stop reading soon.
	stop := time.AfterFunc(time.Second, func() { outR.Close(); errR.Close() })
	readers.Wait()
	stop.Stop()
	outR.Close()
	errR.Close()

	res := Result{Stdout: stdout.String(), Stderr: stderr.String(), Truncated: stdout.truncated() || stderr.truncated(), Killed: killed}
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
