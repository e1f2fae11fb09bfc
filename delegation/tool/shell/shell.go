package shell

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
)

// Name is the tool's name; Network is the capability that lets a command
// reach the network.
const (
	Name    = "shell.run"
	Network = "shell.network"
)

// Attributes a call records on its execute_tool span: the sandbox mode and
// whether the command could reach the network.
const (
	AttrSandbox = "shell_sandbox"
	AttrNetwork = "shell_network"
)

// Sandbox modes.
const (
	SandboxBwrap = "bwrap"
	SandboxNone  = "none"
)

// Defaults for a zero Config field.
const (
	DefaultTimeout     = 2 * time.Minute
	DefaultMaxTimeout  = 10 * time.Minute
	DefaultOutputLimit = 64 << 10
	DefaultMaxProcs    = 256
	DefaultGrace       = 2 * time.Second
	// DrainLimit is how much output past the cap a stream may still write
	// before it is closed.
	DrainLimit = 16 << 20
	// PollInterval is how often the process cap is checked.
	PollInterval = 10 * time.Millisecond
)

// Config sets up shell.run.
type Config struct {
	// Workspace is the folder commands run in and the only one they may
	// write; required, made absolute.
	Workspace string
	// Sandbox is "bwrap" (the default when empty) or "none".
	Sandbox string
	// Timeout is the default per-command limit; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxTimeout caps the timeout_s a call may ask for; 0 means
	// DefaultMaxTimeout (or Timeout when that is longer).
	MaxTimeout time.Duration
	// OutputLimit caps stdout and stderr each, in bytes; 0 means
	// DefaultOutputLimit.
	OutputLimit int
	// MaxProcs caps the processes a command may have at once; 0 means
	// DefaultMaxProcs.
	MaxProcs int
	// Grace is the time between SIGTERM and SIGKILL; 0 means DefaultGrace.
	Grace time.Duration
	// Bwrap is the bubblewrap binary; "" looks up "bwrap" on PATH.
	Bwrap string
	// Home is hidden behind an empty tmpfs; "" means $HOME.
	Home string
	// Protected is agentry's own state, which commands may not change
	// (or, if hidden, read), wherever it sits (protect.go).
	Protected []tool.Protected
}

// Result is what a call returns to the model, as JSON.
type Result struct {
	ExitCode  int    `json:"exit_code"`
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	Truncated bool   `json:"truncated"`
	// Killed says why agentry ended the command ("timeout after 2m0s",
	// "cancelled", "reached the cap of 256 processes"); ExitCode is then -1.
	Killed string `json:"killed,omitempty"`
}

// Shell is the shell.run tool. Safe for concurrent use.
type Shell struct {
	cfg      Config
	bash, sh string
	// rlimitInside caps processes with RLIMIT_NPROC inside the sandbox.
	rlimitInside bool
	// testEnv is added to the sandbox's environment: the differential
	// test's BASH_ENV, which turns bash's trace on.
	testEnv []string
}

var _ tool.Argumented = (*Shell)(nil)

// New returns shell.run as available, or unavailable with the reason (no
// workspace, no bash, no bwrap, or bwrap cannot build its sandbox here).
func New(cfg Config) tool.Availability {
	s, err := Open(cfg)
	if err != nil {
		return tool.Unavailable(Name, err.Error())
	}
	return tool.Available(s)
}

// Open returns the tool, or why it cannot run here.
func Open(cfg Config) (*Shell, error) {
	if cfg.Workspace == "" {
		return nil, fmt.Errorf("no workspace configured")
	}
	ws, err := filepath.Abs(cfg.Workspace)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", cfg.Workspace, err)
	}
	if ws, err = filepath.EvalSymlinks(ws); err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	cfg.Workspace = ws
	cfg = withDefaults(cfg)
	s := &Shell{cfg: cfg}
	if s.bash, err = exec.LookPath("bash"); err != nil {
		return nil, fmt.Errorf("bash is not installed: %w", err)
	}
	if s.sh, err = exec.LookPath("sh"); err != nil {
		s.sh = s.bash
	}
	switch cfg.Sandbox {
	case SandboxNone:
		return s, nil
	case SandboxBwrap:
		if err := s.probe(); err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, fmt.Errorf("shell sandbox %q: want %q or %q", cfg.Sandbox, SandboxBwrap, SandboxNone)
}

func withDefaults(cfg Config) Config {
	if cfg.Sandbox == "" {
		cfg.Sandbox = SandboxBwrap
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxTimeout <= 0 {
		cfg.MaxTimeout = max(DefaultMaxTimeout, cfg.Timeout)
	}
	if cfg.OutputLimit <= 0 {
		cfg.OutputLimit = DefaultOutputLimit
	}
	if cfg.MaxProcs <= 0 {
		cfg.MaxProcs = DefaultMaxProcs
	}
	if cfg.Grace <= 0 {
		cfg.Grace = DefaultGrace
	}
	if cfg.Home == "" {
		cfg.Home = os.Getenv("HOME")
	}
	return cfg
}

// Spec describes shell.run to the model.
func (s *Shell) Spec() model.Tool {
	return model.Tool{
		Name: Name,
		Description: fmt.Sprintf("Run a bash command line in the workspace (%s), sandboxed: the workspace is writable, the rest of the "+
			"filesystem read-only, no network unless granted. Returns exit_code, stdout, stderr (each cut at %d bytes; truncated says so). "+
			"Default timeout %s.", s.cfg.Workspace, s.cfg.OutputLimit, s.cfg.Timeout),
		Parameters: tool.Schema(map[string]string{
			"command":   `{"type":"string","description":"the command line, run with bash -c"}`,
			"timeout_s": fmt.Sprintf(`{"type":"number","exclusiveMinimum":0,"maximum":%g,"description":"seconds before the command is killed"}`, s.cfg.MaxTimeout.Seconds()),
		}, "command"),
	}
}

type args struct {
	Command  string   `json:"command"`
	TimeoutS *float64 `json:"timeout_s"`
}

func decode(raw json.RawMessage) (args, error) {
	var a args
	if err := tool.Decode(raw, &a); err != nil {
		return a, err
	}
	if a.Command == "" {
		return a, fmt.Errorf("%w: command is required", tool.ErrInvalidArgs)
	}
	return a, nil
}

// PatternArgument returns the command line, which permission patterns such
// as shell.run(git *) are matched against.
func (s *Shell) PatternArgument(raw json.RawMessage) (string, error) {
	a, err := decode(raw)
	return a.Command, err
}

// Call runs the command and returns its Result as JSON.
func (s *Shell) Call(ctx context.Context, raw json.RawMessage) (string, error) {
	a, err := decode(raw)
	if err != nil {
		return "", err
	}
	timeout := s.cfg.Timeout
	if a.TimeoutS != nil {
		if *a.TimeoutS <= 0 || *a.TimeoutS > s.cfg.MaxTimeout.Seconds() {
			return "", fmt.Errorf("%w: timeout_s %g is outside (0, %g]", tool.ErrInvalidArgs, *a.TimeoutS, s.cfg.MaxTimeout.Seconds())
		}
		timeout = time.Duration(*a.TimeoutS * float64(time.Second))
	}
	call := tool.CallFrom(ctx)
	network := call.Grants(Network)
	call.SetAttribute(AttrSandbox, s.cfg.Sandbox)
	call.SetAttribute(AttrNetwork, network)
	res, err := s.Run(ctx, a.Command, Options{Timeout: timeout, Network: network})
	if err != nil {
		return "", err
	}
	out, err := json.Marshal(res)
	return string(out), err
}

// OwnTimeout tells the runtime that shell.run bounds its commands itself
// (timeout_s, Config.MaxTimeout), so the general tool timeout of the limits
// hierarchy does not cut a command the model gave more time.
func (s *Shell) OwnTimeout() bool { return true }
