package otlp

import (
	"encoding/json"
	"strings"

	"github.com/agentry/agentry/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// Attribute keys from the GenAI semantic conventions (semconv v1.41.0, the
// last release that holds them and the one the SDK ships).
var (
	keyOperation     = string(semconv.GenAIOperationNameKey)
	keyProvider      = string(semconv.GenAIProviderNameKey)
	keyRequestModel  = string(semconv.GenAIRequestModelKey)
	keyResponseModel = string(semconv.GenAIResponseModelKey)
	keyAgentName     = string(semconv.GenAIAgentNameKey)
	keyAgentID       = string(semconv.GenAIAgentIDKey)
	keyConversation  = string(semconv.GenAIConversationIDKey)
	keyInputTokens   = string(semconv.GenAIUsageInputTokensKey)
	keyOutputTokens  = string(semconv.GenAIUsageOutputTokensKey)
	keyToolName      = string(semconv.GenAIToolNameKey)
	keyToolCallID    = string(semconv.GenAIToolCallIDKey)
	keyToolType      = string(semconv.GenAIToolTypeKey)
	keyToolArgs      = string(semconv.GenAIToolCallArgumentsKey)
	keyToolResult    = string(semconv.GenAIToolCallResultKey)
	keyWorkflowName  = string(semconv.GenAIWorkflowNameKey)
	keyErrorType     = string(semconv.ErrorTypeKey)
)

// prefix marks agentry's own attributes: DESIGN §8 values the conventions
// have no key for.
const prefix = "agentry."

// plainAttrs go out as agentry.<key> on every span that has them;
// contentAttrs only with Config.CaptureContent.
var (
	plainAttrs = prefixed(trace.AttrRetryAttempt, trace.AttrTargetAgent, trace.AttrDelegationStatus,
		trace.AttrQueuedMS, trace.AttrCostUSD, trace.AttrContextMode)
	contentAttrs = prefixed(trace.AttrTask, trace.AttrResult, trace.AttrContextPassed)
)

// prefixed pairs each attribute key with its exported name, made once.
func prefixed(keys ...string) [][2]string {
	out := make([][2]string, len(keys))
	for i, k := range keys {
		out[i] = [2]string{k, prefix + k}
	}
	return out
}

// converter turns finished trace spans into OTLP spans. It is used by one
// goroutine at a time (the Exporter's sender).
type converter struct {
	capture bool
	parent  *Parent // the trace every span joins; nil: each run is its own trace
	slots   []slot  // reused from batch to batch: see slot
}

// maxAttrs is how many attributes a slot holds; more go to the heap.
const maxAttrs = 14

// slot holds one OTLP span and its attributes in one piece of memory that
// the next batch reuses. Building each span from ~40 small allocations
// made conversion and its garbage collection the largest part of export's
// cost; the client is done with the messages once UploadTraces returns.
type slot struct {
	span tracepb.Span
	n    int
	kvp  [maxAttrs]*commonpb.KeyValue
	kv   [maxAttrs]commonpb.KeyValue
	val  [maxAttrs]commonpb.AnyValue
	str  [maxAttrs]commonpb.AnyValue_StringValue
	num  [maxAttrs]commonpb.AnyValue_IntValue
}

// batch converts spans, reusing the slots of the previous batch; the result
// is valid until the next call.
func (c *converter) batch(spans []trace.Span) []*tracepb.Span {
	if len(c.slots) < len(spans) {
		c.slots = make([]slot, len(spans))
	}
	out := make([]*tracepb.Span, len(spans))
	for i, sp := range spans {
		s := &c.slots[i]
		s.span.Reset()
		s.n = 0
		s.span.Attributes = s.kvp[:0]
		c.fill(&s.span, s, sp)
		out[i] = &s.span
	}
	return out
}

// span converts one span into fresh memory.
func (c *converter) span(sp trace.Span) *tracepb.Span {
	out := &tracepb.Span{}
	c.fill(out, nil, sp)
	return out
}

func (c *converter) fill(out *tracepb.Span, s *slot, sp trace.Span) {
	tid := traceID(sp.RunID)
	if c.parent != nil {
		tid = c.parent.TraceID
	}
	sid := spanID(sp.ID)
	out.TraceId, out.SpanId = append(out.TraceId[:0], tid[:]...), append(out.SpanId[:0], sid[:]...)
	out.Name, out.Kind = sp.Name, tracepb.Span_SPAN_KIND_INTERNAL
	out.StartTimeUnixNano, out.EndTimeUnixNano = uint64(sp.StartedAt.UnixNano()), uint64(sp.EndedAt.UnixNano())
	switch {
	case sp.ParentID != "":
		p := spanID(sp.ParentID)
		out.ParentSpanId = p[:]
	case c.parent != nil:
		out.ParentSpanId = c.parent.SpanID[:]
		out.Flags = uint32(c.parent.Flags) | 0x100 // W3C flags, parent is remote
	}
	a := attrs{&out.Attributes, s}
	a.str(keyConversation, sp.RunID)
	if sp.Depth > 0 {
		a.int(prefix+"depth", int64(sp.Depth))
	}
	switch sp.Kind {
	case trace.KindInvokeWorkflow:
		a.str(keyOperation, string(sp.Kind))
		a.str(keyWorkflowName, strings.TrimPrefix(sp.Name, "invoke_workflow "))
	case trace.KindInvokeAgent:
		a.str(keyOperation, string(sp.Kind))
		a.str(keyAgentName, sp.Agent)
		a.str(keyAgentID, sp.ID)
		c.model(a, sp)
		c.usage(a, sp)
	case trace.KindChat: // the most numerous span: only what the convention asks
		out.Kind = tracepb.Span_SPAN_KIND_CLIENT
		a.str(keyOperation, string(sp.Kind))
		if m := c.model(a, sp); m != "" {
			out.Name = "chat " + m
		}
		if s, ok := sp.Attributes[trace.AttrResponseModel].(string); ok {
			a.str(keyResponseModel, s)
		}
		a.int(keyInputTokens, sp.InputTokens)
		a.int(keyOutputTokens, sp.OutputTokens)
	case trace.KindExecuteTool:
		a.str(keyOperation, string(sp.Kind))
		a.str(keyAgentName, sp.Agent)
		a.str(keyToolName, firstOf(str(sp.Attributes[trace.AttrToolName]), strings.TrimPrefix(sp.Name, "execute_tool ")))
		a.str(keyToolType, "function")
		if id := str(sp.Attributes[trace.AttrToolCallID]); id != "" {
			a.str(keyToolCallID, id)
		}
		if c.capture {
			a.any(keyToolArgs, sp.Attributes[trace.AttrToolArguments])
			a.any(keyToolResult, sp.Attributes[trace.AttrToolResult])
		}
	default:
		a.str(prefix+"kind", string(sp.Kind))
	}
	for _, k := range plainAttrs {
		if v := sp.Attributes[k[0]]; v != 0 { // a first attempt's retry_attempt says nothing
			a.any(k[1], v)
		}
	}
	if c.capture {
		for _, k := range contentAttrs {
			a.any(k[1], sp.Attributes[k[0]])
		}
	}
	c.status(out, a, sp)
	for _, ev := range sp.Events {
		e := &tracepb.Span_Event{Name: ev.Name, TimeUnixNano: uint64(ev.Time.UnixNano())}
		ea := attrs{&e.Attributes, nil}
		for k, v := range ev.Attributes {
			ea.any(k, v)
		}
		out.Events = append(out.Events, e)
	}
}

// model sets the provider and model of a spec ("openai:gpt-4.1-mini", or a
// bare provider like "script") and returns the model name.
func (c *converter) model(a attrs, sp trace.Span) string {
	spec := str(sp.Attributes[trace.AttrModel])
	if spec == "" {
		return ""
	}
	provider, name, ok := strings.Cut(spec, ":")
	if !ok {
		name = spec
	}
	a.str(keyProvider, provider)
	a.str(keyRequestModel, name)
	return name
}

func (c *converter) usage(a attrs, sp trace.Span) {
	if sp.InputTokens > 0 || sp.OutputTokens > 0 {
		a.int(keyInputTokens, sp.InputTokens)
		a.int(keyOutputTokens, sp.OutputTokens)
	}
}

// status marks spans that did not succeed as errors, with their status as
// error.type: a small, fixed set (error, timeout, cancelled, denied,
// interrupted), as the convention asks.
func (c *converter) status(out *tracepb.Span, a attrs, sp trace.Span) {
	switch sp.Status {
	case trace.StatusOK, trace.StatusRunning, trace.StatusSkipped:
		return
	}
	a.str(keyErrorType, string(sp.Status))
	out.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: sp.Error}
}

// attrs appends OTLP key-values to a span's or event's attribute list, in
// the slot's memory while it has room.
type attrs struct {
	list *[]*commonpb.KeyValue
	s    *slot // nil: allocate each value
}

func (a attrs) add(k string, v *commonpb.AnyValue) {
	*a.list = append(*a.list, &commonpb.KeyValue{Key: k, Value: v})
}

func (a attrs) str(k, v string) {
	s := a.s
	if s == nil || s.n == maxAttrs {
		a.add(k, &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}})
		return
	}
	i := s.n
	s.n++
	s.str[i].StringValue = v
	s.val[i].Value = &s.str[i]
	s.kv[i].Key, s.kv[i].Value = k, &s.val[i]
	*a.list = append(*a.list, &s.kv[i])
}

func (a attrs) int(k string, v int64) {
	s := a.s
	if s == nil || s.n == maxAttrs {
		a.add(k, &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v}})
		return
	}
	i := s.n
	s.n++
	s.num[i].IntValue = v
	s.val[i].Value = &s.num[i]
	s.kv[i].Key, s.kv[i].Value = k, &s.val[i]
	*a.list = append(*a.list, &s.kv[i])
}

// any adds v in the closest OTLP type; absent values add nothing, and
// structured ones (permission decisions, maps) go as JSON text.
func (a attrs) any(k string, v any) {
	switch v := v.(type) {
	case nil:
	case string:
		a.str(k, v)
	case bool:
		a.add(k, &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v}})
	case int:
		a.int(k, int64(v))
	case int64:
		a.int(k, v)
	case float64:
		a.add(k, &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v}})
	case []string:
		vals := make([]*commonpb.AnyValue, len(v))
		for i, s := range v {
			vals[i] = &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: s}}
		}
		a.add(k, &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: vals}}})
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return
		}
		a.str(k, string(b))
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
