package a2a_test

import (
	"context"
	"log/slog"
	"testing"
	"testing/fstest"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/a2a"
	"github.com/agentry/agentry/delegation/a2a/a2atest"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
)

// parents may call the remote echo (lead), may not (strict: every agent
// but echo), and one shadows an a2a: entry by its id (shadow).
var parents = fstest.MapFS{
	"lead.md":   {Data: []byte("---\nname: lead\ndescription: Leads\nsubagents: {allow: [echo, shadow]}\n---\nLead.\n")},
	"strict.md": {Data: []byte("---\nname: strict\ndescription: Strict\nsubagents: {allow: [\"*\"], deny: [echo]}\n---\nStrict.\n")},
	"shadow.md": {Data: []byte("---\nname: shadow\ndescription: A file of the remote's id\n---\nShadow.\n")},
}

const parentsScript = `lead:
  - calls: [{tool: delegate, args: {agent: echo, task: "hi"}}]
  - say: "lead is done"
strict:
  - calls: [{tool: delegate, args: {agent: echo, task: "hi"}}]
  - say: "strict is done"
`

// What the permission views show of a remote agent is what the runtime
// does with a delegation to it: Explain over Targets of the resolved
// agents, and a run of each parent through the runtime with those agents.
func TestTheViewsDecideARemoteAgentAsTheRuntimeDoes(t *testing.T) {
	srv, _ := a2atest.Serve(t)
	remote, problems := a2a.Resolve(context.Background(), []a2a.Agent{{Card: srv.URL, ID: "echo"}, {Card: srv.URL, ID: "shadow"}}, nil)
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	snap, err := registry.Load(parents, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sm, err := script.Parse([]byte(parentsScript))
	if err != nil {
		t.Fatal(err)
	}
	store := memory.New()
	rec := trace.NewRecorder(store, trace.RecorderConfig{})
	t.Cleanup(func() { rec.Close(context.Background()) })
	rt, err := delegation.New(delegation.Config{Agents: registry.New(snap), DefaultModel: "script", Sink: rec, Remote: remote,
		Logger: slog.New(slog.DiscardHandler), Models: model.Providers{"script": func(string) (model.LLM, error) { return sm, nil }}})
	if err != nil {
		t.Fatal(err)
	}
	targets := a2a.Targets(remote)
	for _, parent := range []string{"lead", "strict"} {
		e, err := snap.Explain(permissions.Rules{}, permissions.Delegation{}, []string{parent}, targets...)
		if err != nil {
			t.Fatal(err)
		}
		var view registry.AgentDecision
		for _, d := range e.Subagents {
			switch d.Agent {
			case "echo":
				view = d
			case "shadow":
				if d.Remote != "" {
					t.Errorf("%s: shadow is an agent file here, shown as remote %s", parent, d.Remote)
				}
			}
		}
		if view.Remote != srv.URL {
			t.Fatalf("%s: echo decided as %+v, want remote %s", parent, view, srv.URL)
		}
		res, err := rt.Run(context.Background(), delegation.Request{Agent: parent, Task: "go"})
		if err != nil || res.Status != trace.StatusOK {
			t.Fatalf("%s: run = %+v, %v", parent, res, err)
		}
		if err := rec.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		call := spanNamed(t, store, res.RunID, "execute_tool delegate")
		if ran := call.Status == trace.StatusOK; ran != view.Allowed {
			t.Errorf("%s → echo: the views say allowed=%v (%s), the runtime's delegation is %s %q", parent, view.Allowed, view.Reason, call.Status, call.Error)
		}
		if !view.Allowed && call.Error != view.Reason {
			t.Errorf("%s → echo: refused with %q, the views say %q", parent, call.Error, view.Reason)
		}
	}
}

// spanNamed is run's span called name.
func spanNamed(t *testing.T, store *memory.Store, run, name string) trace.Span {
	t.Helper()
	spans, err := store.Spans(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range spans {
		if sp.Name == name {
			return sp
		}
	}
	t.Fatalf("run %s has no span %s: %+v", run, name, spans)
	return trace.Span{}
}

// An agent with an id is known without its card; one named only by its
// card is listed by its URL, undecided; no card is read.
func TestOfflineReadsNoCard(t *testing.T) {
	got := a2a.Offline([]a2a.Agent{
		{Card: "http://127.0.0.1:1/a.json", ID: "far", Description: "Far away"},
		{Card: "http://127.0.0.1:1/b.json"},
		{Card: "http://127.0.0.1:1/c.json", ID: "far"}, // taken: left out, as Resolve leaves it out
	})
	if len(got) != 2 || got[0].Agent.Name != "far" || !got[0].Agent.Enabled || got[0].Card != "http://127.0.0.1:1/a.json" ||
		got[0].Description != "Far away" || got[1].Agent.Name != "" || got[1].Card != "http://127.0.0.1:1/b.json" {
		t.Fatalf("Offline = %+v", got)
	}
}
