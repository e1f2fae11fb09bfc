package delegation

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// Every delegation the runtime refuses says so on its span (AttrRefused and
// the reason as the error), so a progress printer can show it as a line.
func TestRefusedDelegationsSayWhyOnTheirSpan(t *testing.T) {
	agents := map[string]string{
		"coord":  "subagents:\n  allow: [leaf, mid]\n  deny: [secret]\n",
		"mid":    "subagents:\n  allow: [leaf]\n",
		"leaf":   "",
		"secret": "",
	}
	f := setup(t, agents, `
coord:
  - calls:
      - {tool: delegate, args: {agent: secret, task: to secret}}
      - {tool: delegate, args: {agent: ghost, task: to ghost}}
      - {tool: delegate, args: {agent: leaf}}
      - {tool: delegate, args: {agent: leaf, task: first, id: A}}
      - {tool: delegate, args: {agent: leaf, task: second, id: B, depends_on: [A]}}
      - {tool: delegate, args: {agent: mid, task: to mid}}
  - say: done
leaf: [{error: broken}]
mid:
  - calls: [{tool: delegate, args: {agent: leaf, task: from mid}}]
  - say: mid done
`, func(c *Config) { c.MaxAgentsPerRun = 3 })
	f.run(t, "coord", "x")
	want := map[string]string{ // the delegation's task or agent → refusal kind
		"to secret": RefusedPermission, "to ghost": RefusedUnknownAgent, "": loop.RefusedArguments,
		"second": loop.RefusedDependency, "from mid": RefusedNotNested,
	}
	got := map[string]string{}
	for _, sp := range f.sink.named("execute_tool delegate") {
		key := delegationKey(sp)
		kind, refused := sp.Attributes[AttrRefused].(string)
		if !refused {
			continue
		}
		got[key] = kind
		if sp.Error == "" || sp.Status == trace.StatusOK {
			t.Errorf("%s refused (%s) with status %s and no reason", key, kind, sp.Status)
		}
	}
	for key, kind := range want {
		if got[key] != kind {
			t.Errorf("delegation %q refused = %q, want %q (all: %v)", key, got[key], kind, got)
		}
	}
	if got["first"] != "" || got["to mid"] != "" {
		t.Errorf("delegations that ran are marked refused: %v", got)
	}
	// mid's sub-agent call is refused because mid is not nested; and mid's
	// invoke_agent span says its delegation was withheld.
	mid := f.sink.one(t, "invoke_agent mid")
	checkWithheld(t, mid, RefusedNotNested, "subagents.nested")
}

func TestMaxAgentsAndMaxDepthRefusalsAreNamed(t *testing.T) {
	var first *firstRecords
	agents := map[string]string{
		"coord": "subagents:\n  allow: [mid, leaf]\n",
		"mid":   "subagents:\n  allow: [leaf]\n  nested: true\n",
		"leaf":  "",
	}
	f := setup(t, agents, `
coord:
  - calls:
      - {tool: delegate, args: {agent: mid, task: to mid}}
      - {tool: delegate, args: {agent: leaf, task: over}}
  - say: done
mid:
  - calls: [{tool: delegate, args: {agent: leaf, task: deep}}]
  - say: mid done
leaf: [{say: leaf}]
`, func(c *Config) {
		c.MaxAgentsPerRun = 2
		c.Delegation = permissions.Delegation{MaxDepth: 1}
		first = &firstRecords{memSink: c.Sink.(*memSink), seen: map[string]trace.Span{}}
		c.Sink = first
	})
	f.run(t, "coord", "x")
	// The event is in mid's first record, so a printer that reacts to a
	// span's start sees it.
	for _, sp := range first.seen {
		if sp.Name == "invoke_agent mid" {
			checkWithheld(t, sp, RefusedDepth, "max_depth 1")
		}
	}
	got := map[string]string{}
	for _, sp := range f.sink.named("execute_tool delegate") {
		got[delegationKey(sp)], _ = sp.Attributes[AttrRefused].(string)
	}
	if got["over"] != RefusedMaxAgents || got["deep"] != RefusedDepth || got["to mid"] != "" {
		t.Fatalf("refusals = %v; want over: max_agents, deep: depth, to mid ran", got)
	}
	checkWithheld(t, f.sink.one(t, "invoke_agent mid"), RefusedDepth, "max_depth 1")
	if ev := f.sink.one(t, "invoke_agent coord").Events; len(ev) != 0 {
		t.Errorf("the root, which may delegate, has events %+v", ev)
	}
}

// delegationKey names a delegate span by its task ("" for a call without one).
func delegationKey(sp trace.Span) string {
	var args struct{ Task string }
	json.Unmarshal([]byte(fmt.Sprint(sp.Attributes[semconv.AttrToolArguments])), &args)
	return args.Task
}

func checkWithheld(t *testing.T, sp trace.Span, kind, reason string) {
	t.Helper()
	for _, ev := range sp.Events {
		if ev.Name == EventDelegationWithheld {
			if ev.Attributes[EventAttrRefused] != kind || !strings.Contains(fmt.Sprint(ev.Attributes[EventAttrReason]), reason) {
				t.Errorf("%s: withheld event %+v, want %s with a reason naming %q", sp.Name, ev.Attributes, kind, reason)
			}
			return
		}
	}
	t.Errorf("%s has no %s event: %+v", sp.Name, EventDelegationWithheld, sp.Events)
}

// firstRecords keeps the first record of every span.
type firstRecords struct {
	*memSink
	seen map[string]trace.Span
}

func (s *firstRecords) RecordSpan(sp trace.Span) {
	s.memSink.mu.Lock()
	if _, ok := s.seen[sp.ID]; !ok {
		s.seen[sp.ID] = sp
	}
	s.memSink.mu.Unlock()
	s.memSink.RecordSpan(sp)
}

// An agent whose tool lists refuse it delegating (a Claude Code tools list
// without Task, disallowedTools: Task) is refused for permission, not for
// depth: its delegate call and its withheld event say so, with the reason.
func TestToolListRefusalsAreNamedPermission(t *testing.T) {
	agents := map[string]string{
		"reader": "tools: Read\nsubagents:\n  allow: [leaf]\n",
		"solo":   "disallowedTools: Task\nsubagents:\n  allow: [leaf]\n",
		"leaf":   "",
	}
	script := `
reader:
  - calls: [{tool: delegate, args: {agent: leaf, task: from reader}}]
  - say: done
solo:
  - calls: [{tool: delegate, args: {agent: leaf, task: from solo}}]
  - say: done
leaf: [{say: leaf}]
`
	for agent, reason := range map[string]string{"reader": "names no Task or Agent", "solo": "deny list names the delegation tool"} {
		f := setup(t, agents, script, nil)
		f.run(t, agent, "x")
		checkWithheld(t, f.sink.one(t, "invoke_agent "+agent), RefusedPermission, reason)
		if sp := f.sink.one(t, "execute_tool delegate"); sp.Attributes[AttrRefused] != RefusedPermission {
			t.Errorf("%s's delegate call: refused %v, want %s", agent, sp.Attributes[AttrRefused], RefusedPermission)
		}
	}
}
