package compare

import (
	"slices"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// diffDoc builds a run: a lead that calls tools and delegates.
type diffDoc struct {
	doc  trace.Document
	next int
}

func newDiffDoc(id string, status trace.Status, result string) *diffDoc {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d := &diffDoc{doc: trace.Document{Run: trace.Run{ID: id, Agent: "lead", Status: status, StartedAt: t0, Result: result}}}
	d.doc.Spans = append(d.doc.Spans, trace.Span{ID: "root", RunID: id, Kind: trace.KindInvokeAgent, Agent: "lead", StartedAt: t0})
	return d
}

func (d *diffDoc) at() time.Time {
	d.next++
	return d.doc.Run.StartedAt.Add(time.Duration(d.next) * time.Millisecond)
}

func (d *diffDoc) tool(parent, name, args, result string, st trace.Status) {
	d.doc.Spans = append(d.doc.Spans, trace.Span{ID: "t" + args + parent, RunID: d.doc.Run.ID, ParentID: parent, Kind: trace.KindExecuteTool, Status: st, StartedAt: d.at(),
		Attributes: map[string]any{semconv.AttrToolName: name, semconv.AttrToolArguments: args, semconv.AttrToolResult: result}})
}

// delegate adds a delegation and its child invocation, returning the child's span ID.
func (d *diffDoc) delegate(parent, target, task string) string {
	call := "d" + target + task
	d.doc.Spans = append(d.doc.Spans,
		trace.Span{ID: call, RunID: d.doc.Run.ID, ParentID: parent, Kind: trace.KindExecuteTool, Status: trace.StatusOK, StartedAt: d.at(),
			Attributes: map[string]any{semconv.AttrToolName: "delegate", semconv.AttrTargetAgent: target, semconv.AttrToolArguments: `{"agent":"` + target + `"}`}},
		trace.Span{ID: "i" + target + task, RunID: d.doc.Run.ID, ParentID: call, Kind: trace.KindInvokeAgent, Agent: target, StartedAt: d.at(),
			Attributes: map[string]any{semconv.AttrTask: task}})
	return "i" + target + task
}

func TestCompareAlignsCallsAndNamesWhatChanged(t *testing.T) {
	a := newDiffDoc("a", trace.StatusOK, "Q4 up 12%")
	a.tool("root", "fs.read", `{"p":"x"}`, "X", trace.StatusOK)
	a.tool("root", "fs.read", `{"p": "y", "q": 1}`, "Y", trace.StatusOK)
	wa := a.delegate("root", "web", "find sources")
	a.tool(wa, "web.fetch", `{"u":1}`, "page", trace.StatusOK)
	a.delegate("root", "analyst", "trends")

	b := newDiffDoc("b", trace.StatusError, "Q4 up")
	b.tool("root", "fs.read", `{"q":1,"p":"y"}`, "Y", trace.StatusOK) // same call, earlier, its keys in another order
	b.tool("root", "fs.read", `{"p":"z"}`, "refused", trace.StatusError)
	wb := b.delegate("root", "web", "find three sources")
	b.tool(wb, "web.fetch", `{"u":1}`, "page", trace.StatusOK)
	b.delegate("root", "checker", "check")

	d := Runs(a.doc, b.doc)
	type row struct {
		change     Change
		path, tool string
		target     string
		what       []string
	}
	var got []row
	for _, c := range d.Calls {
		got = append(got, row{c.Change, c.Path, c.Tool, c.Target, c.What})
	}
	want := []row{
		{Same, "lead", "fs.read", "", nil},
		{Changed, "lead", "fs.read", "", []string{"status ok → error", "arguments", "result"}},
		{Changed, "lead", "delegate", "web", []string{"task"}},
		{Same, "lead › web", "web.fetch", "", nil},
		{Changed, "lead", "delegate", "checker", []string{"target analyst → checker", "task"}},
	}
	if len(got) != len(want) {
		t.Fatalf("calls = %+v\nwant %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.change != w.change || g.path != w.path || g.tool != w.tool || g.target != w.target || !slices.Equal(g.what, w.what) {
			t.Errorf("call %d = %+v, want %+v", i, g, w)
		}
	}
	if added, dropped, changed := d.Counts(); added != 0 || dropped != 0 || changed != 3 {
		t.Errorf("counts %d %d %d", added, dropped, changed)
	}
	if s := d.Summary(); s != "status ok → error; 0 calls added, 0 dropped, 3 changed; final answer changed" {
		t.Errorf("Summary = %q", s)
	}
}

func TestCompareNumbersRepeatedInvocations(t *testing.T) {
	a := newDiffDoc("a", trace.StatusOK, "")
	first := a.delegate("root", "web", "one")
	second := a.delegate("root", "web", "two")
	a.tool(first, "web.fetch", "1", "", trace.StatusOK)
	a.tool(second, "web.fetch", "2", "", trace.StatusOK)
	d := Runs(a.doc, a.doc)
	paths := map[string]bool{}
	for _, c := range d.Calls {
		if c.Change != Same {
			t.Errorf("a run compared with itself has a %s call: %+v", c.Change, c)
		}
		paths[c.Path] = true
	}
	if !paths["lead › web"] || !paths["lead › web#2"] {
		t.Errorf("paths = %v, want the second invocation numbered", paths)
	}
}

func TestASummaryCountsOneAddedCallAsOne(t *testing.T) {
	d := Diff{Calls: []CallDiff{{Change: Added}, {Change: Dropped}}}
	if s := d.Summary(); s != "1 call added, 1 dropped, 0 changed" {
		t.Errorf("Summary = %q", s)
	}
}
