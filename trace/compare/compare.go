// Package compare compares two runs span by span: a replay with its
// original, or the two runs of one eval case at two versions
// (docs/replay.md). It reads trace Documents and nothing else, so the CLI's
// replay and the web UI's run diff (web/rundiff) say the same of two runs;
// it is its own package because the trace record has no use for it.
package compare

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// Diff is two runs compared span by span.
type Diff struct {
	A, B trace.Run
	// Calls are the delegations and tool calls of both runs, aligned, in
	// the order they happened.
	Calls []CallDiff
	// ChatsA and ChatsB count each run's model calls.
	ChatsA, ChatsB int
}

// Change says how a call differs between two runs.
type Change string

// Changes of a CallDiff.
const (
	Same    Change = "same"
	Added   Change = "added"   // only in B
	Dropped Change = "dropped" // only in A
	Changed Change = "changed" // in both, with differences
)

// CallDiff is one delegation or tool call, as A and B made it.
type CallDiff struct {
	Change Change
	// Path is the chain of agents that made the call, root first
	// ("lead › web-researcher"); a second invocation of an agent by one
	// parent is "web-researcher#2".
	Path string
	// Tool is the tool called, "delegate" for a delegation, whose Target
	// is the agent delegated to.
	Tool   string
	Target string
	A, B   *Call // nil in the run without it
	// What lists the differences of a changed call: "status ok → error",
	// "arguments", "result".
	What []string
}

// Call is one delegation or tool call of a run.
type Call struct {
	SpanID string
	Status trace.Status
	// Args are a tool's arguments, a delegation's task.
	Args   string
	Result string
	Start  time.Duration // after the run's start
	Replay string        // how a replay answered it ("recorded", "refused", "live"), "" otherwise
}

// IsDelegation reports whether the call is a delegation.
func (c CallDiff) IsDelegation() bool { return c.Target != "" }

// Runs aligns the delegations and tool calls of two runs. Calls are
// keyed by the agents that made them and the tool (and the target agent
// of a delegation); among calls with one key, those with equal arguments
// pair first, in order, the rest pair in order as changed, and what is
// left over was added or dropped.
func Runs(a, b trace.Document) Diff {
	d := Diff{A: a.Run, B: b.Run}
	ca, chatsA := calls(a)
	cb, chatsB := calls(b)
	d.ChatsA, d.ChatsB = chatsA, chatsB
	keys := map[string]bool{}
	var order []string
	for _, list := range []map[string][]keyedCall{ca, cb} {
		for k := range list {
			if !keys[k] {
				keys[k] = true
				order = append(order, k)
			}
		}
	}
	for _, k := range order {
		d.Calls = append(d.Calls, align(ca[k], cb[k])...)
	}
	d.Calls = retargeted(d.Calls)
	slices.SortStableFunc(d.Calls, func(x, y CallDiff) int {
		return cmp.Or(cmp.Compare(x.at(), y.at()), cmp.Compare(changeOrder[x.Change], changeOrder[y.Change]),
			cmp.Compare(x.Path, y.Path), cmp.Compare(x.Tool, y.Tool), cmp.Compare(x.Target, y.Target))
	})
	return d
}

// retargeted pairs a dropped delegation with an added one of the same
// calling agents, in the order they happened, as one changed delegation
// whose target moved ("target helper → checker"): an edited agent that
// asks another specialist changed its delegation, it did not make an
// unrelated one.
func retargeted(calls []CallDiff) []CallDiff {
	added := map[string][]int{}
	for i, c := range calls {
		if c.Change == Added && c.IsDelegation() {
			added[c.Path] = append(added[c.Path], i)
		}
	}
	drop := map[int]bool{}
	for i := range calls {
		c := &calls[i]
		if c.Change != Dropped || !c.IsDelegation() || len(added[c.Path]) == 0 {
			continue
		}
		j := added[c.Path][0]
		added[c.Path] = added[c.Path][1:]
		b := calls[j]
		d := diffOf(keyedCall{path: c.Path, tool: c.Tool, target: c.Target, call: *c.A}, keyedCall{path: b.Path, tool: b.Tool, target: b.Target, call: *b.B})
		d.Change, d.What = Changed, append([]string{"target " + c.Target + " → " + b.Target}, d.What...)
		*c = d
		drop[j] = true
	}
	out := calls[:0]
	for i, c := range calls {
		if !drop[i] {
			out = append(out, c)
		}
	}
	return out
}

// changeOrder puts, of two calls at one moment, what was there before
// what replaced it.
var changeOrder = map[Change]int{Same: 0, Changed: 1, Dropped: 2, Added: 3}

// at is when the call happened, for ordering: in B if it is there.
func (c CallDiff) at() time.Duration {
	if c.B != nil {
		return c.B.Start
	}
	return c.A.Start
}

// Counts returns how many calls were added, dropped and changed.
func (d Diff) Counts() (added, dropped, changed int) {
	for _, c := range d.Calls {
		switch c.Change {
		case Added:
			added++
		case Dropped:
			dropped++
		case Changed:
			changed++
		}
	}
	return
}

type keyedCall struct {
	path, tool, target string
	call               Call
}

// calls collects a run's calls by key, each list in start order, and
// counts its chat spans.
func calls(doc trace.Document) (map[string][]keyedCall, int) {
	byID := make(map[string]trace.Span, len(doc.Spans))
	for _, sp := range doc.Spans {
		byID[sp.ID] = sp
	}
	paths := agentPaths(doc.Spans, byID)
	out := map[string][]keyedCall{}
	chats := 0
	start := doc.Run.StartedAt
	for _, sp := range doc.Spans {
		if sp.Kind == trace.KindChat {
			chats++
		}
		if sp.Kind != trace.KindExecuteTool {
			continue
		}
		kc := keyedCall{path: paths[sp.ParentID], tool: attrString(sp, semconv.AttrToolName), target: attrString(sp, semconv.AttrTargetAgent)}
		kc.call = Call{SpanID: sp.ID, Status: sp.Status, Args: canonicalJSON(attrString(sp, semconv.AttrToolArguments)),
			Result: attrString(sp, semconv.AttrToolResult), Start: sp.StartedAt.Sub(start), Replay: attrString(sp, semconv.AttrReplay)}
		if kc.target != "" {
			kc.call.Args = taskOf(sp, doc.Spans)
		}
		k := kc.path + "\x00" + kc.tool + "\x00" + kc.target
		out[k] = append(out[k], kc)
	}
	return out, chats
}

// agentPaths names each invoke_agent span by the chain of agents above it.
func agentPaths(spans []trace.Span, byID map[string]trace.Span) map[string]string {
	paths := map[string]string{}
	seen := map[string]int{}   // parent path + agent → invocations so far
	for _, sp := range spans { // start order: a parent comes before its children
		if sp.Kind != trace.KindInvokeAgent {
			continue
		}
		parent := ""
		for p := sp.ParentID; p != ""; p = byID[p].ParentID {
			if pp, ok := paths[p]; ok {
				parent = pp
				break
			}
		}
		name := sp.Agent
		seen[parent+"\x00"+name]++
		if n := seen[parent+"\x00"+name]; n > 1 {
			name = fmt.Sprintf("%s#%d", name, n)
		}
		if parent != "" {
			name = parent + " › " + name
		}
		paths[sp.ID] = name
	}
	return paths
}

// taskOf is the task a delegation gave: its child invoke_agent span's, or
// (a delegation refused before its child began) the task argument it was
// called with.
func taskOf(call trace.Span, spans []trace.Span) string {
	for _, sp := range spans {
		if sp.ParentID == call.ID && sp.Kind == trace.KindInvokeAgent {
			return attrString(sp, semconv.AttrTask)
		}
	}
	args := attrString(call, semconv.AttrToolArguments)
	var a struct{ Task string }
	if json.Unmarshal([]byte(args), &a) == nil && a.Task != "" {
		return a.Task
	}
	return args
}

// canonicalJSON is a JSON text with its keys sorted and no spacing, so
// two calls with the same arguments compare equal however the model wrote
// them; text that is not JSON is kept as it is.
func canonicalJSON(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return s
	}
	return string(b)
}

func attrString(sp trace.Span, key string) string {
	v, ok := sp.Attributes[key]
	if !ok || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// align pairs the calls of one key.
func align(as, bs []keyedCall) []CallDiff {
	var out []CallDiff
	usedA, usedB := make([]bool, len(as)), make([]bool, len(bs))
	pair := func(i, j int) {
		usedA[i], usedB[j] = true, true
		out = append(out, diffOf(as[i], bs[j]))
	}
	for i := range as { // equal arguments first
		for j := range bs {
			if !usedB[j] && as[i].call.Args == bs[j].call.Args {
				pair(i, j)
				break
			}
		}
	}
	j := 0
	for i := range as {
		if usedA[i] {
			continue
		}
		for j < len(bs) && usedB[j] {
			j++
		}
		if j == len(bs) {
			out = append(out, CallDiff{Change: Dropped, Path: as[i].path, Tool: as[i].tool, Target: as[i].target, A: &as[i].call})
			continue
		}
		pair(i, j)
	}
	for j := range bs {
		if !usedB[j] {
			out = append(out, CallDiff{Change: Added, Path: bs[j].path, Tool: bs[j].tool, Target: bs[j].target, B: &bs[j].call})
		}
	}
	return out
}

func diffOf(a, b keyedCall) CallDiff {
	d := CallDiff{Change: Same, Path: b.path, Tool: b.tool, Target: b.target, A: &a.call, B: &b.call}
	if a.call.Status != b.call.Status {
		d.What = append(d.What, fmt.Sprintf("status %s → %s", a.call.Status, b.call.Status))
	}
	if a.call.Args != b.call.Args {
		what := "arguments"
		if d.IsDelegation() {
			what = "task"
		}
		d.What = append(d.What, what)
	}
	if a.call.Result != b.call.Result {
		d.What = append(d.What, "result")
	}
	if len(d.What) > 0 {
		d.Change = Changed
	}
	return d
}

// Summary says in one line how B moved against A: status, tokens, cost
// and the calls added, dropped and changed.
func (d Diff) Summary() string {
	added, dropped, changed := d.Counts()
	parts := []string{}
	if d.A.Status != d.B.Status {
		parts = append(parts, fmt.Sprintf("status %s → %s", d.A.Status, d.B.Status))
	}
	ta, tb := d.A.InputTokens+d.A.OutputTokens, d.B.InputTokens+d.B.OutputTokens
	if ta != tb {
		parts = append(parts, fmt.Sprintf("tokens %d → %d", ta, tb))
	}
	if d.A.CostUSD != d.B.CostUSD {
		parts = append(parts, fmt.Sprintf("cost $%.4f → $%.4f", d.A.CostUSD, d.B.CostUSD))
	}
	calls := "calls"
	if added == 1 {
		calls = "call"
	}
	parts = append(parts, fmt.Sprintf("%d %s added, %d dropped, %d changed", added, calls, dropped, changed))
	if d.A.Result != d.B.Result {
		parts = append(parts, "final answer changed")
	}
	return strings.Join(parts, "; ")
}
