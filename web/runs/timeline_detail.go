package runs

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// SpanDetail is what the details panel shows for one span: its timing and
// status, and the attributes a reader asks about (task, context, result,
// tool call, permissions) laid out as text; anything else is listed as is.
type SpanDetail struct {
	RunID, ID, ParentID string
	Kind                trace.Kind
	Name, Agent         string
	Title               string // "Delegation to data-analyst", as people say it
	Status              trace.Status
	Depth               int
	Started, Ended      string
	Duration            string
	Tokens              string
	Error               string
	Model               string
	Retry               int
	Queued              string

	Task             string
	Target           string // the delegated-to agent
	DelegationStatus string
	ContextMode      string
	Context          string // exactly what the child was given
	Result           string

	ToolName, ToolArgs, ToolResult string
	// Circuit is the tool's circuit-breaker state when it was called (and
	// its MCP server's): "open", "closed; MCP server half_open".
	Circuit string

	EffectiveTools []string
	Decisions      []DecisionView
	Other          []AttrView // attributes without a place above, sorted by key
	Events         []EventView
}

// EventView is one span event: when it happened after the span started,
// its name, and its attributes sorted by key.
type EventView struct {
	Offset string // "+120 ms"
	Name   string
	Attrs  []AttrView
}

// DecisionView is one permission decision with the reason it was taken.
type DecisionView struct {
	Group   string // "tool", "sub-agent" or "delegate tool" when the span recorded groups
	Subject string
	Allowed bool
	Reason  string
	Raw     string // the whole decision as JSON when it had an unknown shape
}

// Verdict is "allowed" or "denied": the word shown and the row's CSS class.
func (d DecisionView) Verdict() string {
	if d.Allowed {
		return "allowed"
	}
	return "denied"
}

// Text is the decision's reason, led by its verdict unless the reason
// already says it ("denied by agent …" stays as it is, never "denied:
// denied by agent …").
func (d DecisionView) Text() string {
	v := d.Verdict()
	if d.Reason == "" {
		return v
	}
	if strings.HasPrefix(strings.ToLower(d.Reason), v) {
		return d.Reason
	}
	return v + ": " + d.Reason
}

// AttrView is one attribute shown as key and text.
type AttrView struct{ Key, Value string }

// The circuit-breaker attributes of a tool span (orchestrator.AttrCircuit,
// orchestrator.AttrCircuitServer).
const (
	attrCircuit       = "circuit"
	attrCircuitServer = "circuit_server"
)

// circuitText shows a tool span's breaker states in one line.
func circuitText(a map[string]any) string {
	c := text(a[attrCircuit])
	if s := text(a[attrCircuitServer]); s != "" {
		c += "; MCP server " + s
	}
	return c
}

// placedAttrs lists the attributes SpanDetail gives a place of their own.
var placedAttrs = []string{
	semconv.AttrTask, semconv.AttrContextMode, semconv.AttrContextPassed, semconv.AttrResult,
	semconv.AttrEffectiveTools, semconv.AttrPermissions, semconv.AttrTargetAgent,
	semconv.AttrDelegationStatus, semconv.AttrRetryAttempt, semconv.AttrModel,
	semconv.AttrToolName, semconv.AttrToolArguments, semconv.AttrToolResult, semconv.AttrQueuedMS,
	attrCircuit, attrCircuitServer,
}

// BuildSpanDetail shapes one span for the details panel.
func BuildSpanDetail(sp trace.Span) SpanDetail {
	a := sp.Attributes
	d := SpanDetail{
		RunID: sp.RunID, ID: sp.ID, ParentID: sp.ParentID, Kind: sp.Kind, Name: sp.Name,
		Title: spanTitle(sp), Agent: sp.Agent, Status: sp.Status, Depth: sp.Depth,
		Started: formatTime(sp.StartedAt), Ended: formatTime(sp.EndedAt),
		Tokens: formatTokens(sp.InputTokens, sp.OutputTokens), Error: sp.Error,
		Model: text(a[semconv.AttrModel]), Retry: intAttr(a, semconv.AttrRetryAttempt),
		Task: text(a[semconv.AttrTask]), Target: text(a[semconv.AttrTargetAgent]),
		DelegationStatus: text(a[semconv.AttrDelegationStatus]),
		ContextMode:      text(a[semconv.AttrContextMode]), Context: text(a[semconv.AttrContextPassed]),
		Result:   text(a[semconv.AttrResult]),
		ToolName: text(a[semconv.AttrToolName]), ToolArgs: text(a[semconv.AttrToolArguments]),
		ToolResult:     text(a[semconv.AttrToolResult]),
		Circuit:        circuitText(a),
		EffectiveTools: stringList(a[semconv.AttrEffectiveTools]),
		Decisions:      decisions(a[semconv.AttrPermissions]),
	}
	if queuedNow(sp) {
		d.Status = statusQueued
	}
	if !sp.EndedAt.IsZero() {
		d.Duration = formatDuration(sp.EndedAt.Sub(sp.StartedAt))
	}
	if q := trace.NumberAttr(a, semconv.AttrQueuedMS); q > 0 {
		d.Queued = fmt.Sprintf("%.0f ms", q)
	}
	for k, v := range a {
		if !slices.Contains(placedAttrs, k) {
			d.Other = append(d.Other, AttrView{Key: k, Value: text(v)})
		}
	}
	slices.SortFunc(d.Other, func(x, y AttrView) int { return cmp.Compare(x.Key, y.Key) })
	for _, e := range sp.Events {
		ev := EventView{Offset: "+" + formatDuration(e.Time.Sub(sp.StartedAt)), Name: e.Name}
		for k, v := range e.Attributes {
			ev.Attrs = append(ev.Attrs, AttrView{Key: k, Value: text(v)})
		}
		slices.SortFunc(ev.Attrs, func(x, y AttrView) int { return cmp.Compare(x.Key, y.Key) })
		d.Events = append(d.Events, ev)
	}
	return d
}

// text renders an attribute for reading: strings as they are, anything else
// (a message list, tool arguments) as indented JSON. A JSON string that holds
// an object, as tool arguments often are, is indented too.
func text(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		var obj any
		if len(v) > 1 && (v[0] == '{' || v[0] == '[') && json.Unmarshal([]byte(v), &obj) == nil {
			return indent(obj)
		}
		return v
	}
	return indent(v)
}

func indent(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// stringList reads a list of names, as JSON decodes []string.
func stringList(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		out = append(out, text(x))
	}
	if s, ok := v.([]string); ok {
		out = append(out, s...)
	}
	return out
}

// decisions reads permission decisions shaped like permissions.Decision
// (subject, allowed, reason). An invoke_agent span records them grouped
// ({delegate, tools, subagents}); a denied delegation records a plain list.
// An entry of another shape is kept as JSON so nothing recorded is hidden.
func decisions(v any) []DecisionView {
	groups, ok := v.(map[string]any)
	if !ok {
		return decisionList(v, "")
	}
	var out []DecisionView
	for _, g := range []struct{ key, label string }{{"delegate", "delegate tool"}, {"tools", "tool"}, {"subagents", "sub-agent"}} {
		x, ok := groups[g.key]
		if !ok {
			continue
		}
		if one, single := x.(map[string]any); single {
			x = []any{one}
		}
		out = append(out, decisionList(x, g.label)...)
	}
	return out
}

func decisionList(v any, group string) []DecisionView {
	list, _ := v.([]any)
	out := make([]DecisionView, 0, len(list))
	for _, x := range list {
		m, ok := x.(map[string]any)
		subject, _ := m["subject"].(string)
		allowed, isBool := m["allowed"].(bool)
		if !ok || subject == "" || !isBool {
			out = append(out, DecisionView{Group: group, Raw: text(x)})
			continue
		}
		reason, _ := m["reason"].(string)
		out = append(out, DecisionView{Group: group, Subject: subject, Allowed: allowed, Reason: reason})
	}
	return out
}
