package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Runner runs the hooks of a Set. It is safe for concurrent use: a run's
// parallel branches fire hooks at once.
type Runner struct {
	set Set
	dir string
	now func() time.Time
}

// New checks set and returns a Runner whose commands run in dir (the
// workspace; "" = the process's directory).
func New(set Set, dir string) (*Runner, error) {
	if err := set.Validate(); err != nil {
		return nil, err
	}
	return &Runner{set: set, dir: dir, now: time.Now}, nil
}

// Fire runs the hooks of p that match ev, in order, until one blocks.
func (r *Runner) Fire(ctx context.Context, p Point, ev Event) Outcome {
	var out Outcome
	if r == nil {
		return out
	}
	hs := r.set[p]
	if len(hs) == 0 {
		return out
	}
	ev.Point, ev.HookEventName = p, claudeNames[p]
	if ev.Cwd == "" {
		ev.Cwd = r.dir
	}
	input, err := json.Marshal(ev)
	if err != nil { // an Event always marshals; keep the failure visible anyway
		return Outcome{Block: true, Reason: "hook input: " + err.Error()}
	}
	for _, h := range hs {
		if !h.matches(ev) {
			continue
		}
		run := r.run(ctx, h, input)
		out.Runs = append(out.Runs, run)
		if run.Verdict == VerdictBlock {
			out.Block, out.Reason = true, run.Reason
			break
		}
	}
	return out
}

// Has reports whether any hook is set for p, so callers can skip building
// an event nobody reads.
func (r *Runner) Has(p Point) bool { return r != nil && len(r.set[p]) > 0 }

// run runs one hook command with input on stdin and reads its verdict.
func (r *Runner) run(ctx context.Context, h Hook, input []byte) Run {
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", h.Command)
	cmd.Dir = r.dir
	if r.dir != "" { // Claude Code's scripts find the project through it
		cmd.Env = append(os.Environ(), "CLAUDE_PROJECT_DIR="+r.dir)
	}
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Own process group, killed whole: a script's children (sleep, curl)
	// must not outlive it or hold its pipes open.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	start := r.now()
	err := cmd.Run()
	run := Run{Command: h.Command, Duration: r.now().Sub(start), ExitCode: -1}
	if cmd.ProcessState != nil && cmd.ProcessState.Exited() {
		run.ExitCode = cmd.ProcessState.ExitCode()
	}
	switch {
	case ctx.Err() != nil:
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			run.Err = fmt.Sprintf("hook timed out after %s and was killed", timeout)
		} else {
			run.Err = "hook cancelled: " + context.Cause(ctx).Error()
		}
	case run.ExitCode == 2:
		run.Verdict, run.Reason = VerdictBlock, firstNonEmpty(strings.TrimSpace(stderr.String()), "blocked by hook (exit 2)")
		return run
	case err != nil:
		run.Err = fmt.Sprintf("hook failed: %v%s", err, tail(stderr.String()))
	case stdout.over:
		run.Err = fmt.Sprintf("hook printed more than %d bytes; its output was ignored", maxOutput)
	default:
		run.Verdict, run.Reason = decide(stdout.Bytes())
		return run
	}
	// A hook that failed counts as its on_error says.
	run.Verdict = VerdictAllow
	if h.OnError == OnErrorBlock {
		run.Verdict = VerdictBlock
	}
	run.Reason = run.Err + " (on_error: " + run.Verdict + ")"
	return run
}

// reply is the JSON a hook may print on stdout: agentry's and Claude Code's
// older top-level decision, and Claude Code's PreToolUse permissionDecision.
type reply struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	Specific struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	} `json:"hookSpecificOutput"`
}

// decide reads the stdout of a hook that exited 0. Output that is not a JSON
// object is ignored (it allows), as Claude Code does with plain text.
func decide(stdout []byte) (verdict, reason string) {
	s := bytes.TrimSpace(stdout)
	if len(s) == 0 || s[0] != '{' {
		return VerdictAllow, ""
	}
	var r reply
	if err := json.Unmarshal(s, &r); err != nil {
		return VerdictAllow, ""
	}
	switch {
	case r.Decision == "block" || r.Decision == "deny":
		return VerdictBlock, firstNonEmpty(r.Reason, "blocked by hook")
	case r.Specific.PermissionDecision == "deny":
		return VerdictBlock, firstNonEmpty(r.Specific.PermissionDecisionReason, r.Reason, "blocked by hook")
	}
	return VerdictAllow, r.Reason
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// tail is the end of a failed hook's stderr, for the reason.
func tail(stderr string) string {
	s := strings.TrimSpace(stderr)
	if s == "" {
		return ""
	}
	if len(s) > 300 {
		s = "…" + s[len(s)-300:]
	}
	return ": " + s
}

// maxOutput bounds what is kept of a hook's stdout and stderr: a verdict is
// a line of JSON, and a runaway script must not fill the memory.
const maxOutput = 64 << 10

// capped is a buffer that keeps the first maxOutput bytes and notes the
// rest. It does not embed bytes.Buffer: io.Copy would use its ReadFrom and
// bypass the cap.
type capped struct {
	buf  bytes.Buffer
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := maxOutput - c.buf.Len(); room < len(p) {
		c.over = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}

func (c *capped) Bytes() []byte  { return c.buf.Bytes() }
func (c *capped) String() string { return c.buf.String() }
