// Package temporaltest starts a real Temporal server (v1.32.2, SQLite in
// memory) for end-to-end tests. The binary is built once by `make
// temporal-server` into ~/.cache/agentry-temporal/bin/server (or named by
// TEMPORAL_SERVER_BIN); without it a test skips with how to build it,
// and fails instead when REQUIRE_TEMPORAL=1 (make test sets it).
package temporaltest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"text/template"
	"time"

	"github.com/agentry/agentry/delegation/temporal"
)

// Binary returns the server binary's path, skipping (or failing under
// REQUIRE_TEMPORAL=1) when it is not there.
func Binary(t testing.TB) string {
	t.Helper()
	path := os.Getenv("TEMPORAL_SERVER_BIN")
	if path == "" {
		home, _ := os.UserHomeDir()
		path = filepath.Join(home, ".cache", "agentry-temporal", "bin", "server")
	}
	if _, err := os.Stat(path); err != nil {
		msg := fmt.Sprintf("no Temporal server at %s: run `make temporal-server` (builds v1.32.2 once, a few minutes)", path)
		if os.Getenv("REQUIRE_TEMPORAL") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return path
}

// Start starts a server for the test, registers namespace on it, and
// returns the frontend's address. The server is killed when the test ends;
// its log is in the test's temporary directory, printed on failure. A
// server that exits while starting (one of its nine free ports was taken
// in between by another process of a busy machine) is started again on
// other ports, up to three times.
func Start(t testing.TB, namespace string) string {
	t.Helper()
	bin := Binary(t)
	var err error
	for range 3 {
		var addr string
		if addr, err = start(t, bin, namespace); err == nil {
			return addr
		}
		t.Logf("temporal server: %v; starting another", err)
	}
	t.Fatalf("temporal server: %v", err)
	return ""
}

func start(t testing.TB, bin, namespace string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	ports := map[string]int{}
	for _, name := range []string{"Frontend", "FrontendMembership", "HTTP", "Matching", "MatchingMembership",
		"History", "HistoryMembership", "Worker", "WorkerMembership"} {
		ports[name] = freePort(t)
	}
	_, here, _, _ := runtime.Caller(0)
	tmpl, err := template.ParseFiles(filepath.Join(filepath.Dir(here), "..", "testdata", "server-sqlite.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "server.yaml")
	f, err := os.Create(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := tmpl.Execute(f, ports); err != nil {
		t.Fatal(err)
	}
	f.Close()
	logPath := filepath.Join(dir, "server.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config-file", cfgPath, "--allow-no-auth", "start")
	cmd.Stdout, cmd.Stderr, cmd.Dir = logf, logf, dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
		logf.Close()
		if t.Failed() {
			if b, err := os.ReadFile(logPath); err == nil {
				t.Logf("temporal server log (last 4 KB):\n%s", tailOf(b, 4096))
			}
		}
	})
	addr := fmt.Sprintf("127.0.0.1:%d", ports["Frontend"])
	ready := make(chan error, 1)
	go func() { ready <- Ready(addr, namespace, 90*time.Second) }()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatalf("temporal server at %s: %v", addr, err)
		}
		return addr, nil
	case err := <-exited:
		exited <- err
		return "", fmt.Errorf("exited while starting (%v), log %s", err, logPath)
	}
}

// Ready waits until the frontend at addr answers and namespace exists on
// it (registering it), so runs can start.
func Ready(addr, namespace string, within time.Duration) error {
	deadline := time.Now().Add(within)
	var last error
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		last = func() error {
			eng, err := temporal.Dial(ctx, temporal.Config{Address: addr, Namespace: namespace}, nil)
			if err != nil {
				return err
			}
			defer eng.Close()
			if err := eng.RegisterNamespace(ctx, 24*time.Hour); err != nil {
				return err
			}
			return eng.Ping(ctx)
		}()
		cancel()
		if last == nil {
			return nil
		}
		time.Sleep(300 * time.Millisecond)
	}
	return last
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func tailOf(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
