package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentry/agentry/delegation/tool"
)

// stopGrace is how long Close waits for a server to exit after its stdin
// closes before signalling it. Many Node servers keep timers alive and never
// exit on their own; the SDK's default of 5s would stall every command's exit.
const stopGrace = time.Second

// Client is a connected MCP server and the tools it offered at connect time.
// It is safe for concurrent use; Close it to stop the server process.
type Client struct {
	server  Server
	session *sdk.ClientSession
	stderr  *tail
	tools   []tool.Tool
	skipped []string

	closeOnce sync.Once
	closeErr  error
}

// Connect starts s, performs the MCP handshake and lists its tools (every
// page). ctx bounds only the start-up; the server then runs until Close.
func Connect(ctx context.Context, s Server) (*Client, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	cmd := s.command()
	stderr := &tail{}
	cmd.Stderr = stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "agentry", Version: "1"},
		&sdk.ClientOptions{Logger: slog.New(slog.DiscardHandler)})
	session, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: stopGrace}, nil)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w%s", s.describe(), err, stderr.suffix())
	}
	c := &Client{server: s, session: session, stderr: stderr}
	if err := c.listTools(ctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("list tools of %s: %w%s", s.describe(), err, stderr.suffix())
	}
	return c, nil
}

// listTools fills c.tools from every page of the server's tool list,
// leaving out tools whose names cannot join the group.
func (c *Client) listTools(ctx context.Context) error {
	seen := map[string]bool{}
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		if problem := toolNameProblem(t.Name); problem != "" {
			c.skipped = append(c.skipped, problem)
			continue
		}
		if seen[t.Name] {
			c.skipped = append(c.skipped, fmt.Sprintf("tool %q is listed twice", t.Name))
			continue
		}
		seen[t.Name] = true
		mt, err := newTool(c, t)
		if err != nil {
			return err
		}
		c.tools = append(c.tools, mt)
	}
	return nil
}

// Name is the server's name, the tool group of its tools.
func (c *Client) Name() string { return c.server.Name }

// Tools returns the server's tools, named "<server>.<tool>", in the order
// the server listed them.
func (c *Client) Tools() []tool.Tool { return c.tools }

// Skipped says which listed tools were left out and why (a name with a dot
// or listed twice), so a caller can warn instead of the server failing whole.
func (c *Client) Skipped() []string { return c.skipped }

// Close ends the session and stops the server process: stdin is closed, then
// the process is signalled if it does not exit. Later calls return the first
// call's result.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		err := c.session.Close()
		var exit interface{ ExitCode() int }
		if errors.As(err, &exit) && exit.ExitCode() == -1 {
			err = nil // ended by our own signal: that is what stopping means
		}
		if errors.Is(err, os.ErrProcessDone) {
			// The server exited on its own just as the grace ran out, before
			// the SDK's signal reached it (its Close returns that signal's
			// error): it is stopped all the same.
			err = nil
		}
		if err != nil {
			c.closeErr = fmt.Errorf("stop %s: %w", c.server.describe(), err)
		}
	})
	return c.closeErr
}

// tail keeps the last bytes a server wrote to stderr, so a failure can say
// what the server said about it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - tailSize; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// suffix is ": stderr: ..." with the last lines, or "" when there are none.
func (t *tail) suffix() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if s == "" {
		return ""
	}
	return "; server stderr: " + s
}
