package tracetest

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
)

func testExportImportRoundTrip(t *testing.T, s trace.Store) {
	r, spans := tree("0af7651916cd43dd8448eb211c80319c")
	r.Status, r.EndedAt, r.Result, r.InputTokens = trace.StatusOK, at(900), "done", 150
	mustApply(t, s, []trace.Run{r}, spans)
	doc, err := s.Export(ctx(t), r.ID)
	if err != nil {
		t.Fatalf("Export: %v", err)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var back trace.Document
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	other := memory.New()
	id, err := other.Import(ctx(t), back)
	if err != nil || id != r.ID {
		t.Fatalf("Import into an empty store = %q, %v; want the same id %q", id, err, r.ID)
	}
	// And back into the suite's store, after deleting the original.
	if err := s.Delete(ctx(t), r.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if id, err := s.Import(ctx(t), back); err != nil || id != r.ID {
		t.Fatalf("Import = %q, %v; want %q", id, err, r.ID)
	}
	again, err := s.Export(ctx(t), r.ID)
	if err != nil {
		t.Fatalf("Export after import: %v", err)
	}
	checkRun(t, again.Run, r)
	checkSpans(t, again.Spans, inStartOrder(spans))
}

func testImportTakenID(t *testing.T, s trace.Store) {
	storedTree(t, s, "r1")
	doc, err := s.Export(ctx(t), "r1")
	if err != nil {
		t.Fatalf("Export: %v", err)
	}
	id, err := s.Import(ctx(t), doc)
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	if id == "r1" || len(id) != 32 {
		t.Fatalf("Import of a taken id gave %q; want a fresh 32-hex id", id)
	}
	copied, err := s.Spans(ctx(t), id)
	if err != nil {
		t.Fatalf("Spans: %v", err)
	}
	orig := doc.Spans
	if len(copied) != len(orig) {
		t.Fatalf("copy has %d spans, want %d", len(copied), len(orig))
	}
	newToOld := map[string]string{}
	for i, sp := range copied {
		if sp.RunID != id || sp.ID == orig[i].ID {
			t.Errorf("span %d: run %q id %q; want run %q and a new id", i, sp.RunID, sp.ID, id)
		}
		newToOld[sp.ID] = orig[i].ID
	}
	for i, sp := range copied {
		if newToOld[sp.ParentID] != orig[i].ParentID {
			t.Errorf("span %d: parent %q maps to %q, want %q", i, sp.ParentID, newToOld[sp.ParentID], orig[i].ParentID)
		}
	}
	if first, _ := s.Spans(ctx(t), "r1"); len(first) != len(orig) {
		t.Errorf("original run now has %d spans, want %d", len(first), len(orig))
	}
}

func testImportInvalid(t *testing.T, s trace.Store) {
	cases := []struct {
		name string
		doc  trace.Document
		says string // in the error message
	}{
		{"a run without id", trace.Document{Run: trace.Run{Agent: "a"}}, "no id"},
		{"a span of another run", trace.Document{Run: run("r1", "a", "", 0), Spans: []trace.Span{span("r2", "s", "", trace.KindChat, "a", 0, 1)}}, "belongs to run"},
		{"a span with an unknown parent", trace.Document{Run: run("r1", "a", "", 0), Spans: []trace.Span{span("r1", "s", "ghost", trace.KindChat, "a", 0, 1)}}, "unknown parent"},
		{"a span id twice", trace.Document{Run: run("r1", "a", "", 0), Spans: []trace.Span{span("r1", "s", "", trace.KindChat, "a", 0, 1), span("r1", "s", "", trace.KindChat, "a", 0, 1)}}, "twice"},
		{"a run with an unknown status", withRunStatus("bogus"), "run status"},
		{"a run without a status", withRunStatus(""), "run status"},
		{"a span of an unknown kind", withSpan(func(sp *trace.Span) { sp.Kind = "invoke_tool" }), "kind"},
		{"a span without a kind", withSpan(func(sp *trace.Span) { sp.Kind = "" }), "kind"},
		{"a span with an unknown status", withSpan(func(sp *trace.Span) { sp.Status = "done" }), "status"},
		{"a span that is its own parent", withSpan(func(sp *trace.Span) { sp.ParentID = sp.ID }), "its own parent"},
		{"a run id with a slash", withRunID("../r1"), "id \"../r1\" has '.' at position 1"},
		{"a run id with a space", withRunID("r 1"), "has ' ' at position 2"},
		{"a run id with markup", withRunID("r<script>"), "has '<'"},
		{"a run id with a newline", withRunID("r1\n"), `"r1\n"`},
		{"a span id with a slash", withSpanIDs("s/1"), "span 0: invalid trace data: id \"s/1\""},
		{"spans whose parents form a loop", trace.Document{Run: run("r1", "a", "", 0), Spans: []trace.Span{
			span("r1", "root", "", trace.KindInvokeAgent, "a", 0, 9),
			span("r1", "x", "z", trace.KindChat, "a", 1, 2),
			span("r1", "y", "x", trace.KindChat, "a", 2, 3),
			span("r1", "z", "y", trace.KindChat, "a", 3, 4),
		}}, "loop"},
	}
	for _, c := range cases {
		_, err := s.Import(ctx(t), c.doc)
		if !errors.Is(err, trace.ErrInvalid) {
			t.Errorf("%s: Import = %v, want ErrInvalid", c.name, err)
		} else if !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: Import = %v, want a message about %q", c.name, err, c.says)
		}
	}
	if _, err := s.Run(ctx(t), "r1"); !errors.Is(err, trace.ErrNotFound) {
		t.Errorf("a rejected import left run r1 behind: %v", err)
	}
}

// withRunStatus is a coherent one-span document whose run has status st.
func withRunStatus(st trace.Status) trace.Document {
	d := withSpan(func(*trace.Span) {})
	d.Run.Status = st
	return d
}

// withRunID is a coherent one-span document whose run ID is id.
func withRunID(id string) trace.Document {
	d := withSpan(func(*trace.Span) {})
	d.Run.ID, d.Spans[0].RunID = id, id
	return d
}

// withSpanIDs is a coherent one-span document whose span ID is id.
func withSpanIDs(id string) trace.Document {
	return withSpan(func(sp *trace.Span) { sp.ID = id })
}

// withSpan is a coherent one-span document with its span changed by change.
func withSpan(change func(*trace.Span)) trace.Document {
	sp := span("r1", "s", "", trace.KindInvokeAgent, "a", 0, 1)
	change(&sp)
	return trace.Document{Run: run("r1", "a", "", 0), Spans: []trace.Span{sp}}
}
