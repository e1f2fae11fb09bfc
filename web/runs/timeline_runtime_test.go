package runs

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/delegation/tool/filesystem"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
)

// TestSpanDetailReadsWhatTheRuntimeRecords renders the details of spans a
// real runtime recorded, so the page and the runtime cannot drift apart on
// the shape of an attribute.
func TestSpanDetailReadsWhatTheRuntimeRecords(t *testing.T) {
	snap, err := registry.Load(fstest.MapFS{
		"coord.md": {Data: []byte("---\nname: coord\ndescription: Leads.\ntools: [filesystem.read_file]\nsubagents: {allow: [leaf]}\n---\nLead.\n")},
		"leaf.md":  {Data: []byte("---\nname: leaf\ndescription: Answers.\n---\nAnswer.\n")},
	}, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sm, err := script.Parse([]byte("coord:\n  - calls: [{tool: delegate, args: {agent: leaf, task: sub}}]\n  - say: done\nleaf: [{say: ok}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	ws, err := filesystem.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	store := memory.New()
	rec := trace.NewRecorder(store, trace.RecorderConfig{})
	rt, err := delegation.New(delegation.Config{Agents: registry.New(snap), DefaultModel: "script", Sink: rec, Tools: ws.Tools(),
		Models: model.Providers{"script": func(string) (model.LLM, error) { return sm, nil }}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := rt.Run(context.Background(), delegation.Request{Agent: "coord", Task: "go"})
	if err != nil || res.Status != trace.StatusOK {
		t.Fatalf("run = %+v, %v", res, err)
	}
	if err := rec.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans, err := store.Spans(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range spans {
		if sp.Kind != trace.KindInvokeAgent || sp.Agent != "coord" {
			continue
		}
		groups := map[string]map[string]bool{}
		for _, d := range BuildSpanDetail(sp).Decisions {
			if d.Raw != "" {
				t.Errorf("decision shown as raw JSON: %s", d.Raw)
			}
			if groups[d.Group] == nil {
				groups[d.Group] = map[string]bool{}
			}
			groups[d.Group][d.Subject] = d.Allowed
		}
		if !groups["tool"]["filesystem.read_file"] || groups["tool"]["filesystem.write_file"] || !groups["sub-agent"]["leaf"] || !groups["delegate tool"]["delegate"] {
			t.Errorf("coord's decisions by group = %v, want read_file allowed, write_file denied, leaf and delegate allowed", groups)
		}
		return
	}
	t.Fatal("no invoke_agent span for coord")
}
