package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// AttrReplay is the attribute a replayed run puts on each intercepted
// execute_tool span: ReplayRecorded, ReplayRefused or ReplayLive.
const AttrReplay = semconv.AttrReplay

// What happened to an intercepted call, the values of AttrReplay.
const (
	ReplayRecorded = "recorded" // answered from the recording
	ReplayRefused  = "refused"  // not in the recording, not run
	ReplayLive     = "live"     // not in the recording, run for real (--live-tools)
)

// AttrReplayOf is the attribute of a replayed run's root span naming the
// run it replays.
const AttrReplayOf = semconv.AttrReplayOf

// ErrNotRecorded is the error of a refused call.
var ErrNotRecorded = errors.New("not in the recording")

// Recording is the tool calls of one recorded run, ready to answer a
// replay's calls. It is safe for concurrent use.
type Recording struct {
	runID string
	mu    sync.Mutex
	calls map[string]*answers
	total int

	replayed, refused, live atomic.Int64
}

// answers are the recorded answers of one tool and arguments, in order.
type answers struct {
	list []answer
	next int
}

type answer struct {
	result string
	err    string // non-empty for a call that failed inside the tool
}

// New reads the tool calls of run runID from its spans (in the order the
// store returns them, start order).
func New(runID string, spans []trace.Span) *Recording {
	r := &Recording{runID: runID, calls: map[string]*answers{}}
	for _, sp := range spans {
		name, a, ok := recorded(sp)
		if !ok {
			continue
		}
		k := key(name, []byte(fmt.Sprint(sp.Attributes[semconv.AttrToolArguments])))
		if r.calls[k] == nil {
			r.calls[k] = &answers{}
		}
		r.calls[k].list = append(r.calls[k].list, a)
		r.total++
	}
	return r
}

// recorded is the answer sp holds: a tool call that ran to a result or to
// an error of the tool's own.
func recorded(sp trace.Span) (string, answer, bool) {
	if sp.Kind != trace.KindExecuteTool {
		return "", answer{}, false
	}
	name, _ := sp.Attributes[semconv.AttrToolName].(string)
	result, hasResult := sp.Attributes[semconv.AttrToolResult].(string)
	if name == "" || !hasResult || delegation.RuntimeTool(name) {
		return "", answer{}, false
	}
	switch sp.Status {
	case trace.StatusOK:
		return name, answer{result: result}, true
	case trace.StatusError:
		if _, panicked := sp.Attributes[delegation.AttrPanic]; panicked || !strings.HasPrefix(result, "error: ") || sp.Error == "" {
			return "", answer{}, false
		}
		return name, answer{err: strings.TrimPrefix(result, "error: ")}, true
	}
	return "", answer{}, false
}

// key is a call's tool and its arguments as a canonical JSON text.
func key(tool string, args []byte) string {
	var v any
	if err := json.Unmarshal(bytes.TrimSpace(args), &v); err != nil || len(bytes.TrimSpace(args)) == 0 {
		return tool + "\x00" + string(bytes.TrimSpace(args))
	}
	canon, _ := json.Marshal(v) // maps marshal with sorted keys
	return tool + "\x00" + string(canon)
}

// RunID is the run the recording was made from.
func (r *Recording) RunID() string { return r.runID }

// Calls is how many tool calls the recording can answer.
func (r *Recording) Calls() int { return r.total }

// Replayed is how many calls were answered from the recording so far.
func (r *Recording) Replayed() int64 { return r.replayed.Load() }

// Refused is how many calls found no recorded answer and were refused.
func (r *Recording) Refused() int64 { return r.refused.Load() }

// Live is how many calls found no recorded answer and ran for real.
func (r *Recording) Live() int64 { return r.live.Load() }

// take returns the next recorded answer for a call.
func (r *Recording) take(tool string, args []byte) (answer, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.calls[key(tool, args)]
	if a == nil {
		return answer{}, false
	}
	i := min(a.next, len(a.list)-1)
	a.next++
	return a.list[i], true
}

// Tools wraps each of tools so its calls are answered from the recording;
// a call the recording cannot answer is refused, or with live run by the
// tool itself. A tool that reads a permission pattern's argument
// (shell.run) keeps doing so.
func (r *Recording) Tools(tools []tool.Tool, live bool) []tool.Tool {
	out := make([]tool.Tool, len(tools))
	for i, t := range tools {
		w := &replayed{inner: t, rec: r, live: live}
		if a, ok := t.(tool.Argumented); ok {
			out[i] = argumented{w, a}
		} else {
			out[i] = w
		}
	}
	return out
}

type replayed struct {
	inner tool.Tool
	rec   *Recording
	live  bool
}

func (t *replayed) Spec() model.Tool { return t.inner.Spec() }

func (t *replayed) Call(ctx context.Context, args json.RawMessage) (string, error) {
	name := t.inner.Spec().Name
	call := tool.CallFrom(ctx)
	if a, ok := t.rec.take(name, args); ok {
		t.rec.replayed.Add(1)
		call.SetAttribute(AttrReplay, ReplayRecorded)
		if a.err != "" {
			return "", errors.New(a.err)
		}
		return a.result, nil
	}
	if t.live {
		t.rec.live.Add(1)
		call.SetAttribute(AttrReplay, ReplayLive)
		return t.inner.Call(ctx, args)
	}
	t.rec.refused.Add(1)
	call.SetAttribute(AttrReplay, ReplayRefused)
	return "", fmt.Errorf("%w: this is a replay of run %s, which did not call %s with these arguments, so the call was not run (replay with --live-tools to run such calls)",
		ErrNotRecorded, t.rec.runID, name)
}

// argumented is a replayed tool whose inner tool reads pattern arguments.
type argumented struct {
	*replayed
	arg tool.Argumented
}

func (t argumented) PatternArgument(args json.RawMessage) (string, error) {
	return t.arg.PatternArgument(args)
}
