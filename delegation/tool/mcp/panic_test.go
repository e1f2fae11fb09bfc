package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/model"
)

// A session that is gone (here: never there) makes the SDK dereference nil;
// the call must come back as an error, not take the process down.
func TestACallThatPanicsIsAnErrorOfThatCall(t *testing.T) {
	c := &Client{server: Server{Name: "broken"}, stderr: &tail{}}
	c.stderr.Write([]byte("last words\n"))
	tl := &mcpTool{client: c, remote: "echo", spec: model.Tool{Name: "broken.echo"}}
	out, err := tl.Call(context.Background(), json.RawMessage(`{}`))
	if !errors.Is(err, ErrPanic) || out != "" {
		t.Fatalf("Call = %q, %v; want ErrPanic", out, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "broken.echo") || !strings.Contains(msg, "last words") {
		t.Fatalf("error %q should name the tool and the server's stderr", msg)
	}
}
