package otlp

import (
	"encoding/json"
	"math"
	"strings"

	otelsemconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// Attribute keys from the GenAI semantic conventions (semconv v1.41.0, the
// last release that holds them and the one the SDK ships).
var (
	keyOperation     = newKey(string(otelsemconv.GenAIOperationNameKey))
	keyProvider      = newKey(string(otelsemconv.GenAIProviderNameKey))
	keyRequestModel  = newKey(string(otelsemconv.GenAIRequestModelKey))
	keyResponseModel = newKey(string(otelsemconv.GenAIResponseModelKey))
	keyAgentName     = newKey(string(otelsemconv.GenAIAgentNameKey))
	keyAgentID       = newKey(string(otelsemconv.GenAIAgentIDKey))
	keyConversation  = newKey(string(otelsemconv.GenAIConversationIDKey))
	keyInputTokens   = newKey(string(otelsemconv.GenAIUsageInputTokensKey))
	keyOutputTokens  = newKey(string(otelsemconv.GenAIUsageOutputTokensKey))
	keyToolName      = newKey(string(otelsemconv.GenAIToolNameKey))
	keyToolCallID    = newKey(string(otelsemconv.GenAIToolCallIDKey))
	keyToolType      = newKey(string(otelsemconv.GenAIToolTypeKey))
	keyToolArgs      = newKey(string(otelsemconv.GenAIToolCallArgumentsKey))
	keyToolResult    = newKey(string(otelsemconv.GenAIToolCallResultKey))
	keyWorkflowName  = newKey(string(otelsemconv.GenAIWorkflowNameKey))
	keyErrorType     = newKey(string(otelsemconv.ErrorTypeKey))
	keyDepth         = newKey(prefix + "depth")
	keyKind          = newKey(prefix + "kind")
)

// prefix marks agentry's own attributes: DESIGN §8 values the conventions
// have no key for.
const prefix = "agentry."

// agentry's own attributes, sent as agentry.<key> on every span that has
// them (but a retry_attempt of 0: a first attempt's says nothing); the
// content ones only with Config.CaptureContent.
var (
	keyRetryAttempt     = newKey(prefix + semconv.AttrRetryAttempt)
	keyTargetAgent      = newKey(prefix + semconv.AttrTargetAgent)
	keyDelegationStatus = newKey(prefix + semconv.AttrDelegationStatus)
	keyQueuedMS         = newKey(prefix + semconv.AttrQueuedMS)
	keyCostUSD          = newKey(prefix + semconv.AttrCostUSD)
	keyContextMode      = newKey(prefix + semconv.AttrContextMode)
	keyTask             = newKey(prefix + semconv.AttrTask)
	keyResult           = newKey(prefix + semconv.AttrResult)
	keyContextPassed    = newKey(prefix + semconv.AttrContextPassed)
)

// modelName is the model part of a spec ("openai:gpt-4.1-mini"), or the
// spec itself when it is a bare provider like "script".
func modelName(spec string) string {
	if _, name, ok := strings.Cut(spec, ":"); ok {
		return name
	}
	return spec
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

	tagString = byte(fString<<3 | protowire.BytesType) // AnyValue.string_value
	tagInt    = byte(fInt<<3 | protowire.VarintType)   // AnyValue.int_value

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
	// parents are the traces some runs join (their root span's
	// AttrTraceParent), by run ID, while they go.
	parents map[string]*Parent

	// The run of the last span and what its spans share, encoded once:
	// a batch holds the spans of one run or a few.
	run    string
	tid    [16]byte
	conv   []byte  // the gen_ai.conversation.id attribute
	joined *Parent // the run's entry in parents, nil when it has none
}

// setRun makes runID the run whose trace ID and conversation attribute
// c keeps.
func (c *encoder) setRun(runID string) {
	c.run, c.tid, c.joined = runID, traceID(runID), c.parents[runID]
	a := attrs{b: c.conv[:0], tag: tagAttributes}
	a.str(keyConversation, runID)
	c.conv = a.b
}

// span appends sp as a ScopeSpans.spans field.
func (c *encoder) span(b []byte, sp *trace.Span) []byte {
	b, outer := open(b, fScopeSpans)
	if sp.RunID != c.run || c.conv == nil {
		c.setRun(sp.RunID)
	}
	b = c.ids(b, sp)
	b = protowire.AppendTag(b, fStart, protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, uint64(sp.StartedAt.UnixNano()))
	b = protowire.AppendTag(b, fEnd, protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, uint64(sp.EndedAt.UnixNano()))
	a := attrs{b: append(b, c.conv...), tag: tagAttributes} // the conversation ID first
	spec, toolName := c.mapAttributes(&a, sp)
	kindAttributes(&a, sp, spec, toolName)
	// The name comes after the attributes, which find the model a chat
	// span is named after; protobuf fields may come in any order.
	b = nameAndKind(a.b, sp, spec)
	for i := range sp.Events {
		b = event(b, &sp.Events[i])
	}
	if failed(sp.Status) {
		b = status(b, sp.Error)
	}
	return closeField(b, outer)
}

// ids appends the span's trace ID, its ID and its parent's: the parent
// span in the run, or else the remote parent of the trace it joins, with
// that parent's W3C flags.
func (c *encoder) ids(b []byte, sp *trace.Span) []byte {
	tid, parent := c.tid, c.parent
	if parent == nil {
		parent = c.joined
	}
	if parent != nil {
		tid = parent.TraceID
	}
	sid := spanID(sp.ID)
	b = bytesField(b, fTraceID, tid[:])
	b = bytesField(b, fSpanID, sid[:])
	switch {
	case sp.ParentID != "":
		p := spanID(sp.ParentID)
		b = bytesField(b, fParentSpanID, p[:])
	case parent != nil:
		b = bytesField(b, fParentSpanID, parent.SpanID[:])
		b = protowire.AppendTag(b, fFlags, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, uint32(parent.Flags)|0x100) // W3C flags; the parent is remote
	}
	return b
}

// nameAndKind appends the span's name and kind: a chat span is a client
// span, named "chat MODEL" after the model of spec when it has one.
func nameAndKind(b []byte, sp *trace.Span, spec string) []byte {
	kind := uint64(kindInternal)
	if sp.Kind == trace.KindChat {
		kind = kindClient
	}
	b = protowire.AppendTag(b, fName, protowire.BytesType)
	if m := modelName(spec); sp.Kind == trace.KindChat && m != "" {
		b = protowire.AppendVarint(b, uint64(len("chat ")+len(m)))
		b = append(append(b, "chat "...), m...)
	} else {
		b = protowire.AppendString(b, sp.Name)
	}
	b = protowire.AppendTag(b, fKind, protowire.VarintType)
	return protowire.AppendVarint(b, kind)
}

// event appends ev as a Span.events field.
func event(b []byte, ev *trace.Event) []byte {
	b, at := open(b, fEvents)
	b = protowire.AppendTag(b, fEventTime, protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, uint64(ev.Time.UnixNano()))
	b = protowire.AppendTag(b, fEventName, protowire.BytesType)
	b = protowire.AppendString(b, ev.Name)
	ea := attrs{b: b, tag: tagEventAttrs}
	for k, v := range ev.Attributes {
		ea.any(newKey(k), v)
	}
	return closeField(ea.b, at)
}

// status appends the error status of a span that failed, with its message.
func status(b []byte, message string) []byte {
	b, at := open(b, fStatus)
	if message != "" {
		b = protowire.AppendTag(b, fStatusMessage, protowire.BytesType)
		b = protowire.AppendString(b, message)
	}
	b = protowire.AppendTag(b, fStatusCode, protowire.VarintType)
	b = protowire.AppendVarint(b, statusCodeError)
	return closeField(b, at)
}

// mapAttributes writes the attributes of sp's map that the conventions
// for its kind carry, and returns the two it needs later: the model spec and the tool
// name. It reads the map in one pass, writing each value as it comes: a
// lookup per key a span might have (a dozen, most absent) cost more than
// all the rest of its encoding.
func (c *encoder) mapAttributes(a *attrs, sp *trace.Span) (spec, toolName string) {
	chat, tool := sp.Kind == trace.KindChat, sp.Kind == trace.KindExecuteTool
	for k, v := range sp.Attributes {
		switch k {
		case semconv.AttrModel:
			spec = str(v)
		case semconv.AttrResponseModel:
			if s := str(v); chat && s != "" {
				a.str(keyResponseModel, s)
			}
		case semconv.AttrToolName:
			toolName = str(v)
		case semconv.AttrToolCallID:
			if s := str(v); tool && s != "" {
				a.str(keyToolCallID, s)
			}
		case semconv.AttrToolArguments:
			if tool && c.capture {
				a.any(keyToolArgs, v)
			}
		case semconv.AttrToolResult:
			if tool && c.capture {
				a.any(keyToolResult, v)
			}
		case semconv.AttrRetryAttempt:
			a.plain(keyRetryAttempt, v)
		case semconv.AttrTargetAgent:
			a.plain(keyTargetAgent, v)
		case semconv.AttrDelegationStatus:
			a.plain(keyDelegationStatus, v)
		case semconv.AttrQueuedMS:
			a.plain(keyQueuedMS, v)
		case semconv.AttrCostUSD:
			a.plain(keyCostUSD, v)
		case semconv.AttrContextMode:
			a.plain(keyContextMode, v)
		case semconv.AttrTask:
			c.content(a, keyTask, v)
		case semconv.AttrResult:
			c.content(a, keyResult, v)
		case semconv.AttrContextPassed:
			c.content(a, keyContextPassed, v)
		}
	}
	return spec, toolName
}

// kindAttributes writes what sp's fields say by the conventions for its
// kind: the operation, the agent or tool, the model of spec, the tokens,
// the depth and the error type.
func kindAttributes(a *attrs, sp *trace.Span, spec, toolName string) {
	if sp.Depth > 0 {
		a.int(keyDepth, int64(sp.Depth))
	}
	switch sp.Kind {
	case trace.KindInvokeWorkflow:
		a.str(keyOperation, string(sp.Kind))
		a.str(keyWorkflowName, strings.TrimPrefix(sp.Name, "invoke_workflow "))
	case trace.KindInvokeAgent:
		a.str(keyOperation, string(sp.Kind))
		a.str(keyAgentName, sp.Agent)
		a.str(keyAgentID, sp.ID)
		model(a, spec)
		if sp.InputTokens > 0 || sp.OutputTokens > 0 {
			a.int(keyInputTokens, sp.InputTokens)
			a.int(keyOutputTokens, sp.OutputTokens)
		}
	case trace.KindChat: // the most numerous span: only what the convention asks
		a.str(keyOperation, string(sp.Kind))
		model(a, spec)
		a.int(keyInputTokens, sp.InputTokens)
		a.int(keyOutputTokens, sp.OutputTokens)
	case trace.KindExecuteTool:
		a.str(keyOperation, string(sp.Kind))
		a.str(keyAgentName, sp.Agent)
		a.str(keyToolName, firstOf(toolName, strings.TrimPrefix(sp.Name, "execute_tool ")))
		a.str(keyToolType, "function")
	default:
		a.str(keyKind, string(sp.Kind))
	}
	if failed(sp.Status) {
		// error.type is the status: a small, fixed set (error, timeout,
		// cancelled, denied, interrupted), as the convention asks.
		a.str(keyErrorType, string(sp.Status))
	}
}

// content adds a content attribute, only with CaptureContent.
func (c *encoder) content(a *attrs, k key, v any) {
	if c.capture {
		a.any(k, v)
	}
}

// failed reports whether a span with status st did not succeed.
func failed(st trace.Status) bool {
	return st != trace.StatusOK && st != trace.StatusRunning && st != trace.StatusSkipped
}

// model sets the provider and model of a spec ("openai:gpt-4.1-mini",
// or a bare provider like "script").
func model(a *attrs, spec string) {
	if spec == "" {
		return
	}
	provider, _, _ := strings.Cut(spec, ":")
	a.str(keyProvider, provider)
	a.str(keyRequestModel, modelName(spec))
}

// key is an attribute key as a KeyValue message starts: its key field and
// the tag of its value field, encoded once.
type key string

func newKey(name string) key {
	b := protowire.AppendTag(nil, fKey, protowire.BytesType)
	b = protowire.AppendString(b, name)
	return key(protowire.AppendTag(b, fValue, protowire.BytesType))
}

// attrs appends OTLP KeyValue fields with tag (Span.attributes or
// Event.attributes). Strings and integers, nearly all attributes, are
// written in one pass with their lengths computed up front.
type attrs struct {
	b   []byte
	tag byte
}

const (
	tagAttributes = byte(fAttributes<<3 | protowire.BytesType)
	tagEventAttrs = byte(fEventAttrs<<3 | protowire.BytesType)
)

func (a *attrs) str(k key, v string) {
	val := 1 + protowire.SizeVarint(uint64(len(v))) + len(v) // the AnyValue
	b := appendVarint(append(a.b, a.tag), uint64(len(k)+protowire.SizeVarint(uint64(val))+val))
	b = appendVarint(append(b, k...), uint64(val))
	b = appendVarint(append(b, tagString), uint64(len(v)))
	a.b = append(b, v...)
}

func (a *attrs) int(k key, v int64) {
	val := 1 + protowire.SizeVarint(uint64(v))
	b := appendVarint(append(a.b, a.tag), uint64(len(k)+protowire.SizeVarint(uint64(val))+val))
	b = appendVarint(append(b, k...), uint64(val))
	a.b = appendVarint(append(b, tagInt), uint64(v))
}

// plain adds one of agentry's own attributes unless it is 0: a first
// attempt's retry_attempt says nothing.
func (a *attrs) plain(k key, v any) {
	if v != 0 {
		a.any(k, v)
	}
}

// begin opens a KeyValue with key k and its AnyValue, for the rarer
// value types.
func (a *attrs) begin(k key) (b []byte, kv, val int) {
	b, kv = open(a.b, protowire.Number(a.tag>>3))
	b, val = append(b, k...), len(b)+len(k)
	return append(b, 0), kv, val
}

func (a *attrs) end(b []byte, kv, val int) {
	a.b = closeField(closeField(b, val), kv)
}

// any adds v in the closest OTLP type; absent values add nothing, and
// structured ones (permission decisions, maps) go as JSON text.
func (a *attrs) any(k key, v any) {
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

// appendVarint is protowire.AppendVarint with the one-byte case inlined:
// nearly every length here is under 128.
func appendVarint(b []byte, v uint64) []byte {
	if v < 0x80 {
		return append(b, byte(v))
	}
	return protowire.AppendVarint(b, v)
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
