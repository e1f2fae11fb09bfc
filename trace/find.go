package trace

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/agentry/agentry/trace/semconv"
)

// SkeletonAttributes are the only attributes Store.Skeleton returns: the
// ones a timeline row and the rollup show, and the run page's versions and
// tags (why the run was made), which it keeps on invocations only
// (InvocationOnly).
var SkeletonAttributes = []string{semconv.AttrTargetAgent, semconv.AttrRetryAttempt, semconv.AttrQueuedMS, semconv.AttrCostUSD, semconv.AttrCachedInputTokens,
	semconv.AttrAgentVersion, semconv.AttrReplayOf, semconv.AttrEvalSuite, semconv.AttrEvalCase}

// InvocationOnly are the SkeletonAttributes a skeleton keeps only on
// invoke_agent and invoke_workflow spans, where they are written (an
// agent's version, the root's tags): a store then looks for them in those
// spans' attributes alone, and a big run's read stays as cheap as before
// they were added (BenchmarkSkeleton100k in trace/sqlite).
var InvocationOnly = map[string]bool{semconv.AttrAgentVersion: true, semconv.AttrReplayOf: true, semconv.AttrEvalSuite: true, semconv.AttrEvalCase: true}

// IsInvocation reports whether k is invoke_agent or invoke_workflow.
func IsInvocation(k Kind) bool { return k == KindInvokeAgent || k == KindInvokeWorkflow }

// SkeletonOf is sp as Store.Skeleton returns it: the live timeline keeps
// changed spans in this shape, and the contract suite expects it.
func SkeletonOf(sp Span) Span {
	var attrs map[string]any
	for _, k := range SkeletonAttributes {
		if InvocationOnly[k] && !IsInvocation(sp.Kind) {
			continue
		}
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

// Matches reports whether sp matches q, the definition Store.FindSpans
// answers from an index: what trace/memory does by scanning, and what the
// contract suite checks stores against.
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
