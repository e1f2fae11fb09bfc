package trace

import (
	"context"
	"errors"
	"time"
)

// Store is the queryable record of runs and spans: what the runtime writes
// (Apply, through a Recorder), what the CLI and the web read, and the
// upkeep a long-lived process does (MarkInterrupted, Ping). trace/sqlite,
// trace/postgres and trace/memory implement all of it and pass
// trace/tracetest's suite, so callers need no type assertions and no
// fallbacks. Implementations are safe for concurrent use; the caller that
// opened a Store closes it.
//
// Times come back in UTC. Attributes come back as JSON would decode them
// (numbers as float64), whatever Go types were recorded.
type Store interface {
	// Apply upserts runs and spans in one transaction: each replaces the
	// stored state for its ID. Runs and spans may arrive in any order, a span
	// before its run included. A span without ID or RunID, or a run without
	// ID, is rejected with ErrInvalid and nothing is written.
	Apply(ctx context.Context, runs []Run, spans []Span) error
	// Runs lists runs newest first (by StartedAt, then ID) that match f.
	Runs(ctx context.Context, f RunFilter) (RunPage, error)
	// Run returns one run, or ErrNotFound.
	Run(ctx context.Context, id string) (Run, error)
	// Spans returns a run's spans in start order (StartedAt, then insertion
	// order). An unknown run has no spans and no error.
	Spans(ctx context.Context, runID string) ([]Span, error)
	// SpansSince returns the run's spans inserted or changed after cursor,
	// in change order, and the cursor to pass next time. Cursor 0 returns
	// every span. A poller (the live timeline) keeps the returned cursor.
	SpansSince(ctx context.Context, runID string, cursor int64) ([]Span, int64, error)
	// Skeleton returns the spans of run runID in start order, as Spans
	// does, but with only what a timeline row needs (SkeletonOf): Error is
	// empty, Attributes holds those of SkeletonAttributes the span has,
	// whatever its kind (InvocationOnly's on invocations only; nil when
	// none are set), and Events are kept only
	// for spans that have not ended (zero EndedAt). The cursor is one
	// SpansSince accepts, so a caller can ask what changed after the read.
	// A run without spans returns none and no error. It is how the run page
	// lays out a big run without reading every attribute.
	Skeleton(ctx context.Context, runID string) ([]Span, int64, error)
	// Span returns span spanID of run runID whole, or an error wrapping
	// ErrNotFound.
	Span(ctx context.Context, runID, spanID string) (Span, error)
	// FindSpans returns the IDs of the spans of run runID that match q, in
	// no particular order (SpanQuery.Matches defines a match). Text is
	// matched word by word (case-insensitive, whole words, see
	// SpanQuery.Words) against the span's task and result attributes
	// together; punctuation in it is not syntax. A span written before the
	// call is found by it, however recently.
	FindSpans(ctx context.Context, runID string, q SpanQuery) ([]string, error)
	// Rollup sums a run's spans per agent, in order of each agent's first
	// span. An unknown run has no rollups and no error.
	Rollup(ctx context.Context, runID string) ([]AgentRollup, error)
	// Export returns a run and its spans as one portable Document, or
	// ErrNotFound.
	Export(ctx context.Context, id string) (Document, error)
	// Import stores a Document and returns the ID the run was stored under:
	// the document's own, or a fresh one (with fresh span IDs, parents
	// remapped consistently) when that ID is already taken. A document that
	// is not coherent is rejected with ErrInvalid.
	Import(ctx context.Context, d Document) (string, error)
	// Delete removes a run and its spans, or returns ErrNotFound.
	Delete(ctx context.Context, id string) error
	// MarkInterrupted marks every run left running by a process that no
	// longer exists as interrupted, with its open spans and pending
	// approvals, and returns how many runs it marked. trace/sqlite asks the
	// operating system about the owning process, trace/postgres whether the
	// owner's session still holds its advisory lock; a store that only one
	// process uses (trace/memory) has none to mark. Durable runs
	// (Run.Durable) are never marked. Safe to call from several processes
	// at once; StartReaper calls it periodically.
	MarkInterrupted(ctx context.Context) (int, error)
	// Ping reports whether the store is still usable, cheaply, for a
	// server's readiness probe (/readyz).
	Ping(ctx context.Context) error
	// Close releases the store. Calls after Close fail.
	Close() error
}

// RunFilter selects runs for Store.Runs. Zero fields do not filter.
type RunFilter struct {
	Agent  string    // the run's root agent, exactly
	Status Status    // the run's status, exactly
	Since  time.Time // runs started at or after Since
	Until  time.Time // runs started before Until
	Text   string    // substring of the task or the result, case folded as strings.ToLower does
	// Limit is the page size; 0 means DefaultLimit, and it is capped at MaxLimit.
	Limit int
	// Cursor continues a listing: pass the previous page's Next.
	Cursor string
	// Offset skips that many matching runs after the cursor, for pages by number.
	Offset int
	// Sort orders the runs: SortNewest ("", the default) or SortCost (most
	// expensive first, then newest). Cursor works with SortNewest only;
	// page a cost listing with Offset.
	Sort string
}

// Run orders for RunFilter.Sort.
const (
	SortNewest = ""
	SortCost   = "cost"
)

// Page sizes for RunFilter.Limit.
const (
	DefaultLimit = 50
	MaxLimit     = 1000
)

// RunPage is one page of a run listing.
type RunPage struct {
	Runs []Run
	// Next is the cursor for the following page; "" when there is none.
	Next string
	// More reports whether runs beyond this page match the filter.
	More bool
}

// AgentRollup is what one agent did in a run.
type AgentRollup struct {
	Agent       string        `json:"agent"`
	Invocations int           `json:"invocations"` // invoke_agent spans
	ModelCalls  int           `json:"model_calls"` // chat spans
	ToolCalls   int           `json:"tool_calls"`  // execute_tool spans, delegations included
	Duration    time.Duration `json:"duration_ns"` // summed over its ended invoke_agent spans
	// Tokens are summed over the agent's chat spans, where model usage is
	// recorded; tokens set on other spans are taken as totals and not added.
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	// Errors counts spans that ended in error, timeout or denied.
	Errors int `json:"errors"`
}

// Document is a run and its spans as one portable JSON value: the output of
// `agentry traces show --json` and `traces export`, and the input of import.
type Document struct {
	Run   Run    `json:"run"`
	Spans []Span `json:"spans"`
}

// ErrClosed is returned by a store used after Close (trace/memory's; the
// database stores return their driver's error).
var ErrClosed = errors.New("store closed")

// ErrInvalid is returned for data a store cannot take: missing IDs, or a
// document whose spans do not belong to its run.
var ErrInvalid = errors.New("invalid trace data")

// IsFinal reports whether s is a status a run or span ends with.
func (s Status) IsFinal() bool { return s != StatusRunning && s != "" }

// IsError reports whether a span that ended with s counts as an error in a
// rollup.
func (s Status) IsError() bool {
	return s == StatusError || s == StatusTimeout || s == StatusDenied
}
