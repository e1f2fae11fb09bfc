package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/delegation/tool/mcp"
	"github.com/agentry/agentry/delegation/tool/mcp/mcptest"
)

// connect starts s and closes it when the test ends.
func connect(t *testing.T, s mcp.Server) *mcp.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mcp.Connect(ctx, s)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func byName(t *testing.T, tools []tool.Tool, name string) tool.Tool {
	t.Helper()
	for _, tl := range tools {
		if tl.Spec().Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %q among %v", name, tool.Names(tools))
	return nil
}

func TestEverythingServerToolsBecomeAGroupNamedAfterTheServer(t *testing.T) {
	c := connect(t, mcptest.Everything(t, "everything"))
	names := tool.Names(c.Tools())
	for _, want := range []string{"everything.echo", "everything.get-sum", "everything.get-tiny-image"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	for _, n := range names {
		if !strings.HasPrefix(n, "everything.") {
			t.Errorf("tool %q is outside the server's group", n)
		}
	}
	spec := byName(t, c.Tools(), "everything.echo").Spec()
	if spec.Description != "Echoes back the input string" {
		t.Errorf("description = %q", spec.Description)
	}
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(spec.Parameters, &schema); err != nil {
		t.Fatalf("schema %s: %v", spec.Parameters, err)
	}
	if schema.Type != "object" || schema.Properties["message"] == nil || !slices.Equal(schema.Required, []string{"message"}) {
		t.Errorf("echo schema = %s", spec.Parameters)
	}
	if len(c.Skipped()) != 0 {
		t.Errorf("skipped %v", c.Skipped())
	}
}

func TestEverythingServerCalls(t *testing.T) {
	c := connect(t, mcptest.Everything(t, "everything"))
	tests := []struct {
		name, tool, args string
		want             string // the whole result, or with a trailing * a prefix
	}{
		{"echo returns the message", "everything.echo", `{"message":"hello from agentry"}`, "Echo: hello from agentry"},
		{"get-sum adds two numbers", "everything.get-sum", `{"a":2,"b":3}`, "The sum of 2 and 3 is 5."},
		{"an image is described, not dumped", "everything.get-tiny-image", `{}`, "*[image image/png, "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := byName(t, c.Tools(), tc.tool).Call(context.Background(), json.RawMessage(tc.args))
			if err != nil {
				t.Fatal(err)
			}
			if prefix, ok := strings.CutPrefix(tc.want, "*"); ok {
				if !strings.Contains(got, prefix) {
					t.Errorf("result %q does not contain %q", got, prefix)
				}
			} else if got != tc.want {
				t.Errorf("result = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestEverythingServerIsErrorBecomesAnError(t *testing.T) {
	c := connect(t, mcptest.Everything(t, "everything"))
	out, err := byName(t, c.Tools(), "everything.echo").Call(context.Background(), json.RawMessage(`{}`))
	if !errors.Is(err, mcp.ErrToolFailed) {
		t.Fatalf("err = %v, out %q; want ErrToolFailed", err, out)
	}
	if msg := err.Error(); !strings.Contains(msg, "everything.echo") || !strings.Contains(msg, "message") {
		t.Errorf("error %q should name the tool and the missing argument", msg)
	}
}

func TestToolListIsReadAcrossPages(t *testing.T) {
	c := connect(t, selfServer(t, "paged", "tools", nil))
	want := []string{"paged.fail", "paged.mixed", "paged.structured", "paged.tool-0", "paged.tool-1", "paged.tool-2", "paged.tool-3", "paged.tool-4"}
	if got := tool.Names(c.Tools()); !slices.Equal(got, want) {
		t.Errorf("tools = %v, want %v (page size 2)", got, want)
	}
	if got := c.Skipped(); len(got) != 1 || !strings.Contains(got[0], `"has.dot"`) {
		t.Errorf("skipped = %q, want the dotted tool", got)
	}
	if d := byName(t, c.Tools(), "paged.fail").Spec().Description; d != "Always fails" {
		t.Errorf("a tool without description should show its title, got %q", d)
	}
}

func TestResultContentRendering(t *testing.T) {
	c := connect(t, selfServer(t, "paged", "tools", nil))
	tests := []struct {
		name, tool, args, want string
		wantErr                error
	}{
		{"arguments reach the server as sent", "paged.tool-3", `{"n":7}`, `tool-3 got {"n":7}`, nil},
		{"missing arguments are sent as an empty object", "paged.tool-0", ``, `tool-0 got {}`, nil},
		{"blocks join in order with non-text ones described", "paged.mixed", `{}`,
			"first\n[image image/png, 7 bytes]\n[resource link readme: file:///readme.md]\n[resource mem://note]\nnote text\nlast", nil},
		{"structured content stands in for missing blocks", "paged.structured", `{}`, `{"answer":42}`, nil},
		{"an isError result is an error with its text", "paged.fail", `{}`, "", mcp.ErrToolFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := byName(t, c.Tools(), tc.tool).Call(context.Background(), json.RawMessage(tc.args))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "disk is full") {
				t.Errorf("error %q lost the server's text", err)
			}
			if got != tc.want {
				t.Errorf("result = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestServersThatCannotStartSayWhich(t *testing.T) {
	tests := []struct {
		name     string
		server   mcp.Server
		timeout  time.Duration
		contains []string
		is       error
	}{
		{"a command that does not exist", mcp.Server{Name: "ghost", Command: "agentry-no-such-mcp-server", Args: []string{"--x"}},
			10 * time.Second, []string{`mcp server "ghost"`, `"agentry-no-such-mcp-server --x"`}, exec.ErrNotFound},
		{"a server that exits at once shows its stderr", selfServer(t, "crashy", "crash", nil),
			10 * time.Second, []string{`mcp server "crashy"`, "boom: this server cannot start"}, nil},
		{"a server that never answers hits the deadline", selfServer(t, "mute", "hang", nil),
			500 * time.Millisecond, []string{`mcp server "mute"`}, context.DeadlineExceeded},
		{"a bad server name is refused before starting", mcp.Server{Name: "Bad.Name", Command: "true"},
			time.Second, []string{`"Bad.Name"`}, mcp.ErrInvalidServer},
		{"an empty command is refused", mcp.Server{Name: "empty"},
			time.Second, []string{`"empty"`, "command is empty"}, mcp.ErrInvalidServer},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tc.timeout)
			defer cancel()
			c, err := mcp.Connect(ctx, tc.server)
			if err == nil {
				c.Close()
				t.Fatal("connected, want an error")
			}
			for _, s := range tc.contains {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %q is not %v", err, tc.is)
			}
		})
	}
}

func TestServerNames(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"everything", true}, {"my-server_2", true}, {"0day", true},
		{"", false}, {"Everything", false}, {"-lead", false}, {"has.dot", false}, {"a b", false}, {"star*", false},
	}
	for _, tc := range tests {
		t.Run("name "+strconv.Quote(tc.name), func(t *testing.T) {
			err := mcp.Server{Name: tc.name, Command: "x"}.Validate()
			if (err == nil) != tc.ok {
				t.Errorf("Validate() = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestCloseStopsTheServerProcess(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	c := connect(t, selfServer(t, "paged", "tools", map[string]string{"MCPTEST_PIDFILE": pidFile}))
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(raw))
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("server %d not running before Close: %v", pid, err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("server %d still exists after Close (kill 0: %v)", pid, err)
	}
	if _, err := byName(t, c.Tools(), "paged.tool-0").Call(context.Background(), nil); err == nil {
		t.Error("a call after Close succeeded")
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestConnectAllStartsEveryServerOrNone(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	set, err := mcp.ConnectAll(ctx, []mcp.Server{mcptest.Everything(t, "everything"), selfServer(t, "paged", "tools", nil)})
	if err != nil {
		t.Fatal(err)
	}
	names := tool.Names(set.Tools())
	if !slices.Contains(names, "everything.echo") || !slices.Contains(names, "paged.tool-4") {
		t.Errorf("tools = %v", names)
	}
	if err := set.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}

	pidFile := filepath.Join(t.TempDir(), "pid")
	_, err = mcp.ConnectAll(ctx, []mcp.Server{
		selfServer(t, "good", "tools", map[string]string{"MCPTEST_PIDFILE": pidFile}),
		{Name: "ghost", Command: "agentry-no-such-mcp-server"},
		selfServer(t, "crashy", "crash", nil),
	})
	if err == nil || !strings.Contains(err.Error(), `"ghost"`) || !strings.Contains(err.Error(), `"crashy"`) {
		t.Fatalf("err = %v, want both failures named", err)
	}
	raw, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(string(raw))
	if pid == 0 {
		t.Fatal("the good server never started")
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the good server %d was left running after a sibling failed", pid)
	}
}

// A call to a server that has gone away is marked tool.ErrUnavailable, so
// a circuit breaker counts it; the server's own error answer is not (it is
// the call's, and the next call may succeed).
func TestAGoneServerIsUnavailableAndAnErrorAnswerIsNot(t *testing.T) {
	c := connect(t, mcptest.Everything(t, "everything"))
	_, err := byName(t, c.Tools(), "everything.echo").Call(context.Background(), json.RawMessage(`{}`))
	if err == nil || errors.Is(err, tool.ErrUnavailable) {
		t.Fatalf("an error answer = %v, want an error not marked unavailable", err)
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	gone := connect(t, selfServer(t, "paged", "tools", map[string]string{"MCPTEST_PIDFILE": pidFile}))
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(raw))
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	_, err = byName(t, gone.Tools(), "paged.tool-0").Call(context.Background(), nil)
	if !errors.Is(err, tool.ErrUnavailable) {
		t.Fatalf("a call to a killed server = %v, want it marked tool.ErrUnavailable", err)
	}
}
