// Package runlog is serve's log: text or JSON lines, secrets redacted, and
// the lines of runs, derived from their span stream like the metrics
// (trace/prometheus), each carrying run_id, agent and span_id so every line
// a run writes can be found by its id (--log-format json, docs/web.md).
package runlog

import (
	"context"
	"io"
	"log/slog"
	"sync"

	"github.com/agentry/agentry/trace"
)

// Logger is serve's logger: text (the default) or JSON lines
// (--log-format json), secrets redacted (trace.RedactAttr) either way.
func Logger(w io.Writer, format string) *slog.Logger {
	opts := &slog.HandlerOptions{ReplaceAttr: trace.RedactAttr}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// Log writes the log lines of runs, derived from their span stream like
// the metrics (trace/prometheus): a line when a run starts and one when a
// span ends badly (error, timeout, denied, limit), each with run_id, agent
// and span_id. Its handler gives the runtime's own lines, which name a run
// by "run" ("run ended", "budget spent"), the same three keys, so every
// line a run writes can be found by run_id.
type Log struct {
	log *slog.Logger

	mu    sync.Mutex
	runs  map[string]runIDs // runs seen, the last maxRunIDs of them
	order []string          // run ids in the order seen, to forget the oldest
}

// runIDs is what Log keeps of a run.
type runIDs struct{ agent, root string }

// maxRunIDs bounds what Log remembers: a line about a run comes while
// it runs or just after, so the last few hundred runs are enough.
const maxRunIDs = 1024

// New logs runs to log.
func New(log *slog.Logger) *Log { return &Log{log: log, runs: map[string]runIDs{}} }

var _ trace.Sink = (*Log)(nil)

// RecordRun does nothing: the runtime logs a run's end itself.
func (l *Log) RecordRun(trace.Run) {}

// RecordSpan logs a run's start (its root span's first record) and spans
// that end badly.
func (l *Log) RecordSpan(sp trace.Span) {
	if sp.ParentID == "" {
		if l.remember(sp) {
			l.log.Info("run started", "run_id", sp.RunID, "agent", sp.Agent, "span_id", sp.ID, "span", sp.Name)
		}
	}
	switch sp.Status {
	case trace.StatusError, trace.StatusTimeout, trace.StatusDenied, trace.StatusLimit:
		l.log.Warn("span ended "+string(sp.Status), "run_id", sp.RunID, "agent", sp.Agent, "span_id", sp.ID,
			"span", sp.Name, "error", sp.Error)
	}
}

// remember keeps a run's root span and reports whether it is new.
func (l *Log) remember(root trace.Span) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, seen := l.runs[root.RunID]; seen {
		return false
	}
	l.runs[root.RunID] = runIDs{agent: root.Agent, root: root.ID}
	l.order = append(l.order, root.RunID)
	if len(l.order) > maxRunIDs {
		delete(l.runs, l.order[0])
		l.order = l.order[1:]
	}
	return true
}

// Handler wraps next so that a record naming a run ("run" or "run_id")
// carries run_id, agent and span_id (the run's root span).
func (l *Log) Handler(next slog.Handler) slog.Handler { return runHandler{next, l} }

type runHandler struct {
	next slog.Handler
	l    *Log
}

func (h runHandler) Enabled(ctx context.Context, lv slog.Level) bool { return h.next.Enabled(ctx, lv) }

func (h runHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return runHandler{h.next.WithAttrs(as), h.l}
}

func (h runHandler) WithGroup(name string) slog.Handler {
	return runHandler{h.next.WithGroup(name), h.l}
}

func (h runHandler) Handle(ctx context.Context, r slog.Record) error {
	var id string
	has := map[string]bool{}
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "run" || a.Key == "run_id" {
			id, a.Key = a.Value.String(), "run_id"
		}
		has[a.Key] = true
		out.AddAttrs(a)
		return true
	})
	if id != "" {
		h.l.mu.Lock()
		ids := h.l.runs[id]
		h.l.mu.Unlock()
		if !has["agent"] {
			out.AddAttrs(slog.String("agent", ids.agent))
		}
		if !has["span_id"] {
			out.AddAttrs(slog.String("span_id", ids.root))
		}
	}
	return h.next.Handle(ctx, out)
}
