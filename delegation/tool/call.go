package tool

import (
	"context"
	"encoding/json"
	"maps"
	"sync"
)

// Call is what the runtime tells a tool about the one call it runs, and what
// the tool hands back beside its result text. The runtime puts it on the
// call's context (WithCall); a tool reads it with CallFrom. Safe for
// concurrent use.
type Call struct {
	// Granted reports whether the invocation's permission chain explicitly
	// grants a capability that is not a tool of its own, such as
	// "shell.network". Nil grants nothing.
	Granted func(name string) bool
	// Skills is the invocation's access to Agent Skills; nil when it has
	// none (skills.go).
	Skills Skills

	mu    sync.Mutex
	attrs map[string]any
}

type callKey struct{}

// WithCall returns ctx carrying c.
func WithCall(ctx context.Context, c *Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallFrom returns the Call on ctx, or an empty one (granting nothing, whose
// attributes go nowhere) when the tool runs outside the runtime, in a test.
func CallFrom(ctx context.Context) *Call {
	if c, ok := ctx.Value(callKey{}).(*Call); ok && c != nil {
		return c
	}
	return &Call{}
}

// Grants reports whether c grants capability name.
func (c *Call) Grants(name string) bool { return c.Granted != nil && c.Granted(name) }

// SetAttribute records key = value on the call's execute_tool span, for the
// timeline (todo.write keeps its checklist there).
func (c *Call) SetAttribute(key string, value any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.attrs == nil {
		c.attrs = map[string]any{}
	}
	c.attrs[key] = value
}

// Attributes returns a copy of the attributes set so far plus extra; extra
// wins on a clash, so a tool cannot overwrite what the runtime records.
func (c *Call) Attributes(extra map[string]any) map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]any, len(c.attrs)+len(extra))
	maps.Copy(out, c.attrs)
	maps.Copy(out, extra)
	return out
}

// Argumented is implemented by a tool whose permission patterns carry an
// argument part, such as shell.run(git *): PatternArgument returns the text a
// pattern's argument is matched against (shell.run's command line).
type Argumented interface {
	PatternArgument(args json.RawMessage) (string, error)
}

// PatternArgument returns t's pattern argument for args, and false when t
// takes no pattern argument.
func PatternArgument(t Tool, args json.RawMessage) (string, bool, error) {
	a, ok := t.(Argumented)
	if !ok {
		return "", false, nil
	}
	s, err := a.PatternArgument(args)
	return s, true, err
}
