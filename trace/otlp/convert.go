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

// Span attributes agentry keeps under its own names: DESIGN §8 values the
// conventions have no key for. attrCallID and attrResponseModel are read
// when the runtime records them.
const (
	attrCallID        = "tool_call_id"
	attrResponseModel = "response_model"
	prefix            = "agentry."
)

// plainAttrs go out as agentry.<key> on every span that has them;
// contentAttrs only with Config.CaptureContent.
var (
	plainAttrs = []string{trace.AttrRetryAttempt, trace.AttrTargetAgent, trace.AttrDelegationStatus,
		trace.AttrQueuedMS, trace.AttrCostUSD, trace.AttrContextMode}
	contentAttrs = []string{trace.AttrTask, trace.AttrResult, trace.AttrContextPassed}
)

// converter turns finished trace spans into OTLP spans. It is used by one
// goroutine at a time (the Exporter's sender).
type converter struct {
	capture bool
	parent  *Parent // the trace every span joins; nil: each run is its own trace
}

func (c *converter) span(sp trace.Span) *tracepb.Span {
	tid := traceID(sp.RunID)
	if c.parent != nil {
		tid = c.parent.TraceID
	}
	sid := spanID(sp.ID)
	out := &tracepb.Span{
		TraceId: tid[:], SpanId: sid[:],
		Name: sp.Name, Kind: tracepb.Span_SPAN_KIND_INTERNAL,
		StartTimeUnixNano: uint64(sp.StartedAt.UnixNano()), EndTimeUnixNano: uint64(sp.EndedAt.UnixNano()),
		Attributes: make([]*commonpb.KeyValue, 0, 16),
	}
	switch {
	case sp.ParentID != "":
		p := spanID(sp.ParentID)
		out.ParentSpanId = p[:]
	case c.parent != nil:
		out.ParentSpanId = c.parent.SpanID[:]
		out.Flags = uint32(c.parent.Flags) | 0x100 // W3C flags, parent is remote
	}
	a := attrs{&out.Attributes}
	a.str(keyConversation, sp.RunID)
	a.str(prefix+"status", string(sp.Status))
	a.int(prefix+"depth", int64(sp.Depth))
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
	case trace.KindChat:
		out.Kind = tracepb.Span_SPAN_KIND_CLIENT
		a.str(keyOperation, string(sp.Kind))
		a.str(keyAgentName, sp.Agent)
		if m := c.model(a, sp); m != "" {
			out.Name = "chat " + m
		}
		if s, ok := sp.Attributes[attrResponseModel].(string); ok {
			a.str(keyResponseModel, s)
		}
		a.int(keyInputTokens, sp.InputTokens)
		a.int(keyOutputTokens, sp.OutputTokens)
	case trace.KindExecuteTool:
		a.str(keyOperation, string(sp.Kind))
		a.str(keyAgentName, sp.Agent)
		a.str(keyToolName, firstOf(str(sp.Attributes[trace.AttrToolName]), strings.TrimPrefix(sp.Name, "execute_tool ")))
		a.str(keyToolType, "function")
		if id := str(sp.Attributes[attrCallID]); id != "" {
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
		a.any(prefix+k, sp.Attributes[k])
	}
	if c.capture {
		for _, k := range contentAttrs {
			a.any(prefix+k, sp.Attributes[k])
		}
	}
	c.status(out, a, sp)
	for _, ev := range sp.Events {
		e := &tracepb.Span_Event{Name: ev.Name, TimeUnixNano: uint64(ev.Time.UnixNano())}
		ea := attrs{&e.Attributes}
		for k, v := range ev.Attributes {
			ea.any(k, v)
		}
		out.Events = append(out.Events, e)
	}
	return out
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

// attrs appends OTLP key-values to a span's or event's attribute list.
type attrs struct{ list *[]*commonpb.KeyValue }

func (a attrs) add(k string, v *commonpb.AnyValue) {
	*a.list = append(*a.list, &commonpb.KeyValue{Key: k, Value: v})
}

func (a attrs) str(k, v string) {
	a.add(k, &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}})
}

func (a attrs) int(k string, v int64) {
	a.add(k, &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v}})
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
