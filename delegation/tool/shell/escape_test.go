package shell

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/tool"
)

// The attempts of issue 24, made as root (as CI and this machine run):
// each once broke out of the sandbox.

func TestRootInTheSandboxHoldsNoCapability(t *testing.T) {
	s := sandbox(t, Config{})
	res := run(t, s, "grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status", Options{})
	for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		if f := strings.Fields(line); len(f) != 2 || strings.Trim(f[1], "0") != "" {
			t.Errorf("%q: want no capability at all (running as uid %d)", line, os.Getuid())
		}
	}
	if res := run(t, s, "unshare -U true && echo made", Options{}); strings.Contains(res.Stdout, "made") {
		t.Errorf("a command made a user namespace of its own: %+v", res)
	}
}

func TestMountTricksDoNotReachTheHost(t *testing.T) {
	s := sandbox(t, Config{})
	outside := t.TempDir() // under /tmp on the host, where the sandbox has a tmpfs of its own
	escaped := filepath.Join(outside, "escaped")
	key := filepath.Join(s.cfg.Home, ".ssh", "id_ed25519")
	for _, attempt := range []string{
		"mount -o remount,bind,rw / ; umount -l /tmp ; echo x > " + escaped,
		"umount -l " + s.cfg.Home + " ; umount -l /tmp ; cat " + key,
		"mount -t tmpfs none " + outside + " ; mount --bind / " + outside,
	} {
		res := run(t, s, attempt, Options{})
		if strings.Contains(res.Stdout, "SECRET-KEY") {
			t.Errorf("%s: read the hidden SSH key: %+v", attempt, res)
		}
		if _, err := os.Stat(escaped); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s: wrote %s on the host", attempt, escaped)
		}
	}
}

func TestNsenterCannotJoinTheHostNetwork(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go acceptAll(ln)
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	s := sandbox(t, Config{})
	// The test process sits in the host's network namespace.
	attempt := fmt.Sprintf("umount -l /proc; nsenter --net=/proc/%d/ns/net bash -c 'exec 3<>/dev/tcp/127.0.0.1/%s && echo connected'", os.Getpid(), port)
	if res := run(t, s, attempt, Options{}); strings.Contains(res.Stdout, "connected") {
		t.Fatalf("reached a host port through nsenter: %+v", res)
	}
}

func TestHostUnixSocketsNeedTheNetworkGrant(t *testing.T) {
	s := sandbox(t, Config{})
	helper := linkTestBinary(t, s.cfg.Workspace)
	for _, dir := range []string{"/var/tmp", s.cfg.Workspace} {
		sock := listenUnix(t, dir)
		dial := "AGENTRY_DIAL_UNIX=" + sock + " " + helper + " -test.run=^TestHelperDialUnix$"
		if res := run(t, s, dial, Options{}); strings.Contains(res.Stdout, "hello from the host") {
			t.Errorf("reached the host socket %s without shell.network: %+v", sock, res)
		}
		// /var/tmp is a private tmpfs either way; the grant opens sockets
		// the sandbox can see.
		if res := run(t, s, dial, Options{Network: true}); dir == s.cfg.Workspace && !strings.Contains(res.Stdout, "hello from the host") {
			t.Errorf("with shell.network the host socket %s should be reachable: %+v", sock, res)
		}
	}
	if res := run(t, s, "ls -A /run | head -1", Options{}); res.Stdout != "" {
		t.Errorf("/run should be an empty tmpfs without shell.network, got %q", res.Stdout)
	}
}

func TestOwnStateIsReadOnlyOrHidden(t *testing.T) {
	ws := t.TempDir()
	write := func(rel, text string) string {
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	db := write("data/agentry.db", "SQLite format 3 TRACE-SECRET")
	wal := write("data/agentry.db-wal", "WAL")
	agent := write("agents/coder.md", "---\nname: coder\n---\n")
	config := write("agentry.yaml", "models: {openai: {api_key: CONFIG-SECRET}}\n")
	own := []tool.Protected{
		{Path: db, What: "the trace database", Hidden: true},
		{Path: wal, What: "the trace database", Hidden: true},
		{Path: db + "-shm", What: "the trace database", Hidden: true}, // missing: created empty, then hidden
		{Path: filepath.Join(ws, "agents"), What: "the agents folder", Dir: true},
		{Path: filepath.Join(ws, "workflows"), What: "the workflows folder", Dir: true}, // missing
		{Path: config, What: "the config file", Hidden: true},
	}
	s := sandbox(t, Config{Workspace: ws, Protected: own})
	for _, attempt := range []string{
		"echo 'tools: {allow: [shell.network]}' >> agents/coder.md",
		"rm -f agents/coder.md",
		"mv agents agents.old && mkdir agents && echo x > agents/coder.md",
		"echo 'permissions: {tools: {allow: [\"*\"]}}' >> agentry.yaml",
		"rm -f agentry.yaml; echo 'permissions: {}' > agentry.yaml",
		"echo x > data/agentry.db",
		"echo x >> data/agentry.db-wal",
		"echo x > data/agentry.db-shm",
		"mv data data.old && mkdir data && echo forged > data/agentry.db",
		"mkdir -p workflows && echo 'name: evil' > workflows/evil.yaml",
		"echo x > agents/new.md",
	} {
		res := run(t, s, attempt, Options{})
		if res.ExitCode == 0 {
			t.Errorf("%s: succeeded inside the sandbox: %+v", attempt, res)
		}
	}
	res := run(t, s, "cat agentry.yaml data/agentry.db data/agentry.db-wal agents/coder.md", Options{})
	if strings.Contains(res.Stdout, "SECRET") || !strings.Contains(res.Stdout, "name: coder") {
		t.Errorf("read %q; want the agents folder readable and the config and database hidden", res.Stdout)
	}
	for p, want := range map[string]string{db: "SQLite format 3 TRACE-SECRET", wal: "WAL", agent: "---\nname: coder\n---\n",
		config: "models: {openai: {api_key: CONFIG-SECRET}}\n", db + "-shm": "", filepath.Join(ws, "workflows", "evil.yaml"): "(missing)"} {
		b, err := os.ReadFile(p)
		if got := string(b); err != nil && !errors.Is(err, os.ErrNotExist) || err != nil && want != "(missing)" || err == nil && got != want {
			t.Errorf("%s after the attempts: %q, %v; want %q", p, got, err, want)
		}
	}
}

// TestHelperDialUnix is no test: it is what the sandbox runs (the test
// binary, linked into the workspace) to dial the unix socket named by
// AGENTRY_DIAL_UNIX and print what it reads.
func TestHelperDialUnix(t *testing.T) {
	path := os.Getenv("AGENTRY_DIAL_UNIX")
	if path == "" {
		return
	}
	c, err := net.Dial("unix", path)
	if err != nil {
		fmt.Println("dial:", err)
		os.Exit(3)
	}
	b, _ := io.ReadAll(c)
	fmt.Printf("%s\n", b)
	os.Exit(0)
}

// linkTestBinary makes this test binary runnable inside the sandbox (the
// host's /tmp, where go test keeps it, is hidden there).
func linkTestBinary(t *testing.T, dir string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "helper.test")
	if os.Link(self, dst) != nil {
		b, err := os.ReadFile(self)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// listenUnix serves "hello from the host" on a unix socket in dir.
func listenUnix(t *testing.T, dir string) string {
	t.Helper()
	f, err := os.CreateTemp(dir, "agentry-test-*.sock")
	if err != nil {
		t.Fatal(err)
	}
	path := f.Name()
	f.Close()
	os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close(); os.Remove(path) })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello from the host"))
			c.Close()
		}
	}()
	return path
}

func acceptAll(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Close()
	}
}

func TestStateReachedThroughALinkInTheWorkspaceIsRefused(t *testing.T) {
	ws, real := t.TempDir(), t.TempDir()
	if err := os.Symlink(real, filepath.Join(ws, "agents")); err != nil {
		t.Fatal(err)
	}
	s := sandbox(t, Config{Workspace: ws, Protected: []tool.Protected{{Path: filepath.Join(ws, "agents"), What: "the agents folder", Dir: true}}})
	// Otherwise a command could do this, and agentry would read agents/ from the workspace.
	_, err := s.Run(t.Context(), "rm agents && mkdir agents && echo x > agents/evil.md", Options{})
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Run = %v; want it refused, naming the link", err)
	}
	if fi, err := os.Lstat(filepath.Join(ws, "agents")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v, %v", fi, err)
	}
}
