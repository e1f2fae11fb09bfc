package otlp

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/agentry/agentry/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"google.golang.org/protobuf/encoding/protowire"
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

// Field numbers of the OTLP messages written here
// (opentelemetry/proto/trace/v1/trace.proto, common/v1/common.proto).
const (
	fScopeSpans    = 2 // ScopeSpans.spans
	fTraceID       = 1
	fSpanID        = 2
	fParentSpanID  = 4
	fName          = 5
	fKind          = 6
	fStart         = 7
	fEnd           = 8
	fAttributes    = 9
	fEvents        = 11
	fStatus        = 15
	fFlags         = 16
	fEventTime     = 1
	fEventName     = 2
	fEventAttrs    = 3
	fStatusMessage = 2
	fStatusCode    = 3
	fKey           = 1 // KeyValue
	fValue         = 2
	fString        = 1 // AnyValue
	fBool          = 2
	fInt           = 3
	fDouble        = 4
	fArray         = 5
	fArrayValues   = 1 // ArrayValue

	kindInternal    = 1 // Span.SpanKind
	kindClient      = 3
	statusCodeError = 2 // Status.StatusCode
)

// encoder writes finished trace spans as OTLP Span messages, each as one
// ScopeSpans.spans field, straight from trace.Span with protowire.
// Building OTLP message structs for protobuf-go to marshal cost several
// µs per span (allocation, then a size pass and an encoding pass over
// ~40 small messages), more than the delegation that made the span; the
// bytes are the same. The collector tests decode them with the
// Collector's own receiver. It is used by one goroutine at a time.
type encoder struct {
	capture bool
	parent  *Parent // the trace every span joins; nil: each run is its own trace
}

// span appends sp as a ScopeSpans.spans field.
func (c *encoder) span(b []byte, sp trace.Span) []byte {
	b, outer := open(b, fScopeSpans)
	tid := traceID(sp.RunID)
	if c.parent != nil {
		tid = c.parent.TraceID
	}
	sid := spanID(sp.ID)
	b = bytesField(b, fTraceID, tid[:])
	b = bytesField(b, fSpanID, sid[:])
	switch {
	case sp.ParentID != "":
		p := spanID(sp.ParentID)
		b = bytesField(b, fParentSpanID, p[:])
	case c.parent != nil:
		b = bytesField(b, fParentSpanID, c.parent.SpanID[:])
		b = protowire.AppendTag(b, fFlags, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, uint32(c.parent.Flags)|0x100) // W3C flags; the parent is remote
	}
	name, kind := sp.Name, uint64(kindInternal)
	if sp.Kind == trace.KindChat {
		kind = kindClient
		if m := modelName(sp); m != "" {
			name = "chat " + m
		}
	}
	b = protowire.AppendTag(b, fName, protowire.BytesType)
	b = protowire.AppendString(b, name)
	b = protowire.AppendTag(b, fKind, protowire.VarintType)
	b = protowire.AppendVarint(b, kind)
	b = protowire.AppendTag(b, fStart, protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, uint64(sp.StartedAt.UnixNano()))
	b = protowire.AppendTag(b, fEnd, protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, uint64(sp.EndedAt.UnixNano()))
	a := attrs{b, fAttributes}
	c.attributes(&a, sp)
	b = a.b
	for _, ev := range sp.Events {
		var at int
		b, at = open(b, fEvents)
		b = protowire.AppendTag(b, fEventTime, protowire.Fixed64Type)
		b = protowire.AppendFixed64(b, uint64(ev.Time.UnixNano()))
		b = protowire.AppendTag(b, fEventName, protowire.BytesType)
		b = protowire.AppendString(b, ev.Name)
		ea := attrs{b, fEventAttrs}
		for k, v := range ev.Attributes {
			ea.any(k, v)
		}
		b = closeField(ea.b, at)
	}
	if failed(sp.Status) {
		var at int
		b, at = open(b, fStatus)
		if sp.Error != "" {
			b = protowire.AppendTag(b, fStatusMessage, protowire.BytesType)
			b = protowire.AppendString(b, sp.Error)
		}
		b = protowire.AppendTag(b, fStatusCode, protowire.VarintType)
		b = protowire.AppendVarint(b, statusCodeError)
		b = closeField(b, at)
	}
	return closeField(b, outer)
}

// attributes writes sp's attributes by the conventions for its kind.
func (c *encoder) attributes(a *attrs, sp trace.Span) {
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
		if sp.InputTokens > 0 || sp.OutputTokens > 0 {
			a.int(keyInputTokens, sp.InputTokens)
			a.int(keyOutputTokens, sp.OutputTokens)
		}
	case trace.KindChat: // the most numerous span: only what the convention asks
		a.str(keyOperation, string(sp.Kind))
		c.model(a, sp)
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
	if failed(sp.Status) {
		// error.type is the status: a small, fixed set (error, timeout,
		// cancelled, denied, interrupted), as the convention asks.
		a.str(keyErrorType, string(sp.Status))
	}
}

// failed reports whether a span with status st did not succeed.
func failed(st trace.Status) bool {
	return st != trace.StatusOK && st != trace.StatusRunning && st != trace.StatusSkipped
}

// model sets the provider and model of the span's spec
// ("openai:gpt-4.1-mini", or a bare provider like "script").
func (c *encoder) model(a *attrs, sp trace.Span) {
	spec := str(sp.Attributes[trace.AttrModel])
	if spec == "" {
		return
	}
	provider, _, _ := strings.Cut(spec, ":")
	a.str(keyProvider, provider)
	a.str(keyRequestModel, modelName(sp))
}

// modelName is the model part of the span's spec, "" when it has none.
func modelName(sp trace.Span) string {
	spec := str(sp.Attributes[trace.AttrModel])
	if _, name, ok := strings.Cut(spec, ":"); ok {
		return name
	}
	return spec
}

// attrs appends OTLP KeyValue fields numbered field.
type attrs struct {
	b     []byte
	field protowire.Number
}

func (a *attrs) str(k, v string) {
	b, kv, val := a.begin(k)
	b = protowire.AppendTag(b, fString, protowire.BytesType)
	b = protowire.AppendString(b, v)
	a.end(b, kv, val)
}

func (a *attrs) int(k string, v int64) {
	b, kv, val := a.begin(k)
	b = protowire.AppendTag(b, fInt, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(v))
	a.end(b, kv, val)
}

// begin opens a KeyValue with key k and its AnyValue.
func (a *attrs) begin(k string) (b []byte, kv, val int) {
	b, kv = open(a.b, a.field)
	b = protowire.AppendTag(b, fKey, protowire.BytesType)
	b = protowire.AppendString(b, k)
	b, val = open(b, fValue)
	return b, kv, val
}

func (a *attrs) end(b []byte, kv, val int) {
	a.b = closeField(closeField(b, val), kv)
}

// any adds v in the closest OTLP type; absent values add nothing, and
// structured ones (permission decisions, maps) go as JSON text.
func (a *attrs) any(k string, v any) {
	switch v := v.(type) {
	case nil:
	case string:
		a.str(k, v)
	case int:
		a.int(k, int64(v))
	case int64:
		a.int(k, v)
	case bool:
		b, kv, val := a.begin(k)
		b = protowire.AppendTag(b, fBool, protowire.VarintType)
		b = protowire.AppendVarint(b, protowire.EncodeBool(v))
		a.end(b, kv, val)
	case float64:
		b, kv, val := a.begin(k)
		b = protowire.AppendTag(b, fDouble, protowire.Fixed64Type)
		b = protowire.AppendFixed64(b, math.Float64bits(v))
		a.end(b, kv, val)
	case []string:
		b, kv, val := a.begin(k)
		b, arr := open(b, fArray)
		for _, s := range v {
			var one int
			b, one = open(b, fArrayValues)
			b = protowire.AppendTag(b, fString, protowire.BytesType)
			b = protowire.AppendString(b, s)
			b = closeField(b, one)
		}
		a.end(closeField(b, arr), kv, val)
	default:
		j, err := json.Marshal(v)
		if err == nil {
			a.str(k, string(j))
		}
	}
}

func bytesField(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

// open appends the tag of a length-delimited field and a one-byte length
// to fill in by closeField, and returns where that byte is.
func open(b []byte, num protowire.Number) ([]byte, int) {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return append(b, 0), len(b)
}

// closeField writes the length of what follows the byte at at, moving the
// field's contents when the length needs more than one byte.
func closeField(b []byte, at int) []byte {
	n := len(b) - at - 1
	if n < 0x80 {
		b[at] = byte(n)
		return b
	}
	extra := protowire.SizeVarint(uint64(n)) - 1
	for range extra {
		b = append(b, 0)
	}
	copy(b[at+1+extra:], b[at+1:at+1+n])
	protowire.AppendVarint(b[:at], uint64(n))
	return b
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
