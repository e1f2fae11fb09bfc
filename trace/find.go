package trace

import (
	"context"
	"fmt"
	"github.com/agentry/agentry/trace/semconv"
	"strings"
	"unicode"
)

// The interfaces in this file are optional: a Store may implement them to
// make the run page cheap on big runs, and callers fall back to Spans when
// it does not. They live here, beside Store, so every store can grow them.

// SkeletonAttributes are the only attributes a SkeletonReader returns: the
// ones a timeline row and the rollup show.
var SkeletonAttributes = []string{semconv.AttrTargetAgent, semconv.AttrRetryAttempt, semconv.AttrQueuedMS, semconv.AttrCostUSD, semconv.AttrCachedInputTokens}

// SkeletonOf is sp as a SkeletonReader returns it: the live timeline keeps
// changed spans in this shape, and the contract suite expects it.
func SkeletonOf(sp Span) Span {
	var attrs map[string]any
	for _, k := range SkeletonAttributes {
		if v, ok := sp.Attributes[k]; ok {
			if attrs == nil {
				attrs = map[string]any{}
			}
			attrs[k] = v
		}
	}
	sp.Attributes, sp.Error = attrs, ""
	if !sp.EndedAt.IsZero() {
		sp.Events = nil
	}
	return sp
}

// SkeletonReader reads a run's spans narrowly, for laying a big run out.
type SkeletonReader interface {
	// Skeleton returns the spans of run runID in start order, as Spans does,
	// but with only what a timeline row needs: Error is empty, Attributes
	// holds those of SkeletonAttributes the span has, whatever its kind
	// (nil when none are set), and Events are kept only for spans that
	// have not ended (zero EndedAt). The cursor is one SpansSince accepts,
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

// Words are the words of Text a span must have: runs of letters and digits,
// lower-cased, as SQLite's FTS5 tokenizer splits text. Anything else
// separates words and is never query syntax; a Text without words (only
// punctuation, say) puts no condition on the spans.
func (q SpanQuery) Words() []string { return words(q.Text) }

func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
}

// Matches reports whether sp matches q as SpanFinder defines it: what a
// store without an index does by scanning, and what the contract suite
// checks stores against.
func (q SpanQuery) Matches(sp Span) bool {
	if (q.Agent != "" && sp.Agent != q.Agent) || (q.Status != "" && sp.Status != q.Status) ||
		(q.Tool != "" && (sp.Kind != KindExecuteTool || sp.Name != "execute_tool "+q.Tool)) {
		return false
	}
	want := q.Words()
	if len(want) == 0 {
		return true
	}
	has := map[string]bool{}
	for _, k := range []string{semconv.AttrTask, semconv.AttrResult} {
		if v, ok := sp.Attributes[k]; ok {
			for _, w := range words(fmt.Sprint(v)) {
				has[w] = true
			}
		}
	}
	for _, w := range want {
		if !has[w] {
			return false
		}
	}
	return true
}

// SpanFinder answers a SpanQuery from an index rather than a scan.
type SpanFinder interface {
	// FindSpans returns the IDs of the spans of run runID that match q, in
	// no particular order. Text is matched word by word (case-insensitive,
	// whole words, see Words) against the span's task and result
	// attributes together; punctuation in it is not syntax. A span written
	// before the call is found by it, however recently. Safe for
	// concurrent use.
	FindSpans(ctx context.Context, runID string, q SpanQuery) ([]string, error)
}
