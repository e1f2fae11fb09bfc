package shell

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/tool"
)

// sandbox returns a bwrap shell over a fresh workspace, with a fake $HOME
// that holds an SSH key.
func sandbox(t *testing.T, cfg Config) *Shell {
	t.Helper()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("SECRET-KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	if cfg.Workspace == "" {
		cfg.Workspace = t.TempDir()
	}
	cfg.Home = home
	s, err := Open(cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

func run(t *testing.T, s *Shell, command string, o Options) Result {
	t.Helper()
	res, err := s.Run(context.Background(), command, o)
	if err != nil {
		t.Fatalf("Run(%q): %v", command, err)
	}
	return res
}

// gone reports whether no process holds marker in its command line, waiting
// a little for the kernel to tear down a killed sandbox.
func gone(t *testing.T, marker string) bool {
	t.Helper()
	for range 100 {
		if !running(marker) {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

func running(marker string) bool {
	names, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, n := range names {
		if b, err := os.ReadFile(n); err == nil && strings.Contains(string(b), marker) {
			return true
		}
	}
	return false
}

func TestRunReportsOutputAndExitCode(t *testing.T) {
	s := sandbox(t, Config{})
	res := run(t, s, "echo out; echo err >&2; pwd; exit 3", Options{})
	if res.ExitCode != 3 || res.Stdout != "out\n"+s.cfg.Workspace+"\n" || res.Stderr != "err\n" || res.Truncated || res.Killed != "" {
		t.Fatalf("got %+v", res)
	}
}

func TestTheWorkspaceIsWritable(t *testing.T) {
	s := sandbox(t, Config{})
	res := run(t, s, "echo hello > made.txt", Options{})
	b, err := os.ReadFile(filepath.Join(s.cfg.Workspace, "made.txt"))
	if res.ExitCode != 0 || err != nil || string(b) != "hello\n" {
		t.Fatalf("got %+v, file %q, %v", res, b, err)
	}
}

func TestWritingOutsideTheWorkspaceFails(t *testing.T) {
	s := sandbox(t, Config{})
	outside, err := os.MkdirTemp(".", "outside-")
	if err != nil {
		t.Fatal(err)
	}
	outside, _ = filepath.Abs(outside)
	t.Cleanup(func() { os.RemoveAll(outside) })
	for _, target := range []string{filepath.Join(outside, "escaped"), "/usr/agentry-escaped"} {
		res := run(t, s, "echo x > "+target, Options{})
		if res.ExitCode == 0 {
			t.Errorf("writing %s succeeded inside the sandbox: %+v", target, res)
		}
	}
	// /tmp is a tmpfs of the sandbox's own: a write there lands nowhere.
	beside := filepath.Join(filepath.Dir(s.cfg.Workspace), "escaped")
	run(t, s, "echo x > "+beside, Options{})
	for _, target := range []string{filepath.Join(outside, "escaped"), "/usr/agentry-escaped", beside} {
		if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists on the host after the command: %v", target, err)
		}
	}
}

func TestHomeSecretsAreHidden(t *testing.T) {
	s := sandbox(t, Config{})
	key := filepath.Join(s.cfg.Home, ".ssh", "id_ed25519")
	for _, c := range []string{"cat " + key, "cat ~/.ssh/id_ed25519", "ls -A ~ | grep -q ssh"} {
		if res := run(t, s, c, Options{}); res.ExitCode == 0 || strings.Contains(res.Stdout, "SECRET-KEY") {
			t.Errorf("%s: the SSH key is visible: %+v", c, res)
		}
	}
}

func TestAgentryEnvironmentIsNotPassed(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-should-not-leak")
	s := sandbox(t, Config{})
	res := run(t, s, "env", Options{})
	if strings.Contains(res.Stdout, "sk-should-not-leak") || !strings.Contains(res.Stdout, "PATH=") {
		t.Fatalf("environment: %q", res.Stdout)
	}
}

func TestNetworkOnlyWhenGranted(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	connect := "exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo connected"
	s := sandbox(t, Config{})
	if res := run(t, s, connect, Options{}); res.ExitCode == 0 || strings.Contains(res.Stdout, "connected") {
		t.Errorf("connected without the network grant: %+v", res)
	}
	if res := run(t, s, connect, Options{Network: true}); res.ExitCode != 0 || res.Stdout != "connected\n" {
		t.Errorf("could not connect with the network grant: %+v", res)
	}

	call := &tool.Call{Granted: func(n string) bool { return n == Network }}
	out, err := s.Call(tool.WithCall(context.Background(), call), json.RawMessage(`{"command":`+strconv.Quote(connect)+`}`))
	if err != nil || !strings.Contains(out, `"exit_code":0`) {
		t.Errorf("Call with shell.network granted = %s, %v", out, err)
	}
	if a := call.Attributes(nil); a[AttrNetwork] != true || a[AttrSandbox] != SandboxBwrap {
		t.Errorf("span attributes %v; want the grant and the sandbox recorded", a)
	}
	out, err = s.Call(context.Background(), json.RawMessage(`{"command":`+strconv.Quote(connect)+`}`))
	if err != nil || strings.Contains(out, `"exit_code":0`) {
		t.Errorf("Call without a grant = %s, %v", out, err)
	}
}

func TestAForkBombIsContained(t *testing.T) {
	s := sandbox(t, Config{MaxProcs: 64})
	t.Run("the process cap kills a bomb whose shell keeps running", func(t *testing.T) {
		marker := "forkbomb-" + strconv.FormatInt(time.Now().UnixNano(), 36)
		res := run(t, s, ": "+marker+"; bomb() { bomb | bomb & }; bomb; sleep 1000", Options{Timeout: 30 * time.Second})
		if res.Killed != "reached the cap of 64 processes" || res.ExitCode != -1 {
			t.Fatalf("got %+v; want the process cap to end it", res)
		}
		if !gone(t, marker) {
			t.Fatal("fork bomb processes survived the sandbox")
		}
	})
	t.Run("the PID namespace ends a bomb whose shell has exited", func(t *testing.T) {
		marker := "forkbomb-" + strconv.FormatInt(time.Now().UnixNano(), 36)
		run(t, s, ": "+marker+"; :(){ :|:& };:", Options{Timeout: 30 * time.Second})
		if !gone(t, marker) {
			t.Fatal("fork bomb processes survived the sandbox")
		}
	})
}

func TestAnEndlessFloodIsTruncated(t *testing.T) {
	s := sandbox(t, Config{OutputLimit: 1000})
	res := run(t, s, "yes flood", Options{Timeout: time.Minute})
	if !res.Truncated || len(res.Stdout) != 1000 || !strings.HasPrefix(res.Stdout, "flood\nflood\n") {
		t.Fatalf("truncated %v, %d bytes of stdout", res.Truncated, len(res.Stdout))
	}
	if res.Killed != "" || res.ExitCode != 128+13 {
		t.Fatalf("the flood should end by SIGPIPE (141), not the timeout: %+v", res.ExitCode)
	}
}

func TestACommandIgnoringSIGTERMIsKilledAtTheTimeout(t *testing.T) {
	s := sandbox(t, Config{Grace: 100 * time.Millisecond})
	marker := "stubborn-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	res := run(t, s, "trap '' TERM; echo ready; sleep 1000 # "+marker, Options{Timeout: 300 * time.Millisecond})
	if res.Killed != "timeout after 300ms" || res.ExitCode != -1 || res.Stdout != "ready\n" {
		t.Fatalf("got %+v", res)
	}
	if !gone(t, marker) {
		t.Fatal("the command survived its timeout")
	}
}

func TestCancellingEndsTheCommand(t *testing.T) {
	s := sandbox(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	res, err := s.Run(ctx, "sleep 1000", Options{})
	if err != nil || res.Killed != "cancelled" {
		t.Fatalf("got %+v, %v", res, err)
	}
}

func TestBackgroundProcessesDoNotOutliveTheCommand(t *testing.T) {
	s := sandbox(t, Config{})
	marker := "orphan-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	res := run(t, s, "bash -c 'sleep 1000 # "+marker+"' & echo started", Options{})
	if res.ExitCode != 0 || res.Stdout != "started\n" {
		t.Fatalf("got %+v", res)
	}
	if !gone(t, marker) {
		t.Fatal("a background process outlived the sandbox")
	}
}

func TestWithoutBwrapTheToolIsUnavailable(t *testing.T) {
	bin := t.TempDir()
	realBash, err := filepath.EvalSymlinks("/bin/bash")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(realBash, filepath.Join(bin, "bash")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	a := New(Config{Workspace: t.TempDir()})
	if a.Ok() || a.Name != Name || !strings.Contains(a.Reason, "bubblewrap (bwrap) is not installed") {
		t.Fatalf("New without bwrap = %+v", a)
	}
	if a := New(Config{Workspace: t.TempDir(), Sandbox: SandboxNone}); !a.Ok() {
		t.Fatalf("sandbox none should not need bwrap: %+v", a)
	}
}

func TestABrokenBwrapIsUnavailable(t *testing.T) {
	a := New(Config{Workspace: t.TempDir(), Bwrap: "/bin/false"})
	if a.Ok() || !strings.Contains(a.Reason, "cannot create a sandbox") {
		t.Fatalf("got %+v", a)
	}
}

func TestUnsandboxedRunKeepsTheLimits(t *testing.T) {
	s := sandbox(t, Config{Sandbox: SandboxNone, Grace: 100 * time.Millisecond, OutputLimit: 10})
	res := run(t, s, "echo 0123456789abc; exit 2", Options{})
	if res.ExitCode != 2 || res.Stdout != "0123456789" || !res.Truncated {
		t.Fatalf("got %+v", res)
	}
	marker := "unsandboxed-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	res = run(t, s, "trap '' TERM; sleep 1000 # "+marker, Options{Timeout: 200 * time.Millisecond})
	if res.Killed == "" || !gone(t, marker) {
		t.Fatalf("got %+v; the process group must die", res)
	}
}

func TestCallRejectsBadArguments(t *testing.T) {
	s := sandbox(t, Config{})
	for _, raw := range []string{`{}`, `{"command":""}`, `{"command":"ls","timeout_s":0}`, `{"command":"ls","timeout_s":100000}`, `{"command":"ls","cwd":"/"}`} {
		if _, err := s.Call(context.Background(), json.RawMessage(raw)); !errors.Is(err, tool.ErrInvalidArgs) {
			t.Errorf("Call(%s) error = %v; want ErrInvalidArgs", raw, err)
		}
	}
	if got, err := s.PatternArgument(json.RawMessage(`{"command":"git status"}`)); got != "git status" || err != nil {
		t.Errorf("PatternArgument = %q, %v", got, err)
	}
}

func TestInvalidSandboxModeIsAReason(t *testing.T) {
	if a := New(Config{Workspace: t.TempDir(), Sandbox: "docker"}); a.Ok() || !strings.Contains(a.Reason, `"docker"`) {
		t.Fatalf("got %+v", a)
	}
}
