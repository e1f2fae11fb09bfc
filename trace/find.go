package trace

import "context"

// The interfaces in this file are optional: a Store may implement them to
// make the run page cheap on big runs, and callers fall back to Spans when
// it does not. They live here, beside Store, so every store can grow them.

// SkeletonAttributes are the only attributes a SkeletonReader returns: the
// ones a timeline row and the rollup show.
var SkeletonAttributes = []string{AttrTargetAgent, AttrRetryAttempt, AttrQueuedMS}

// SkeletonReader reads a run's spans narrowly, for laying a big run out.
type SkeletonReader interface {
	// Skeleton returns the spans of run runID in start order, as Spans does,
	// but with only what a timeline row needs: Error is empty, Attributes
	// holds at most SkeletonAttributes (nil when none are set), and Events
	// are kept for running spans only. The cursor is one SpansSince accepts,
	// so a caller can ask what changed after the read. A run without spans
	// returns none and no error. Safe for concurrent use.
	Skeleton(ctx context.Context, runID string) ([]Span, int64, error)
}

// SpanReader reads one span whole.
type SpanReader interface {
	// Span returns span spanID of run runID, or an error wrapping
	// ErrNotFound. Safe for concurrent use.
	Span(ctx context.Context, runID, spanID string) (Span, error)
}

// SpanQuery is a find within one run. Empty fields match everything; the
// fields that are set must all match.
type SpanQuery struct {
	Agent  string // the span's agent, exactly
	Status Status // the span's stored status, exactly
	Tool   string // an execute_tool span named "execute_tool " + Tool
	Text   string // words that all appear in the span's task or result
}

// Empty reports whether q matches every span.
func (q SpanQuery) Empty() bool { return q == SpanQuery{} }

// SpanFinder answers a SpanQuery from an index rather than a scan.
type SpanFinder interface {
	// FindSpans returns the IDs of the spans of run runID that match q, in
	// no particular order. Text is matched word by word (case-insensitive,
	// whole words); punctuation in it is not syntax. Safe for concurrent use.
	FindSpans(ctx context.Context, runID string, q SpanQuery) ([]string, error)
}
