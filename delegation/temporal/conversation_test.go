package temporal_test

import (
	"context"
	"log/slog"
	"reflect"
	"sync"
	"testing"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
)

// heard is a model that keeps the messages of every request it is sent.
type heard struct {
	model.LLM
	mu   sync.Mutex
	msgs [][]model.Message
}

func (h *heard) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	h.mu.Lock()
	h.msgs = append(h.msgs, append([]model.Message(nil), req.Messages...))
	h.mu.Unlock()
	return h.LLM.Generate(ctx, req)
}

func conversationRuntime(t *testing.T) (*delegation.Runtime, *heard, *trace.Recorder, *memory.Store) {
	t.Helper()
	snap, err := registry.Load(agentsFS, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sm, err := script.Parse([]byte("leaf: [{say: two}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	h := &heard{LLM: sm}
	store := memory.New()
	rec := trace.NewRecorder(store, trace.RecorderConfig{})
	rt, err := delegation.New(delegation.Config{Agents: registry.New(snap), DefaultModel: "script", Sink: rec,
		Logger: slog.New(slog.DiscardHandler), Models: model.Providers{"script": func(string) (model.LLM, error) { return h, nil }}})
	if err != nil {
		t.Fatal(err)
	}
	return rt, h, rec, store
}

// A follow-up on Temporal (run --continue, chat) gives the root agent the
// conversation so far, as in-process, names the conversation on its root
// span, and returns the root's messages so the client can record them.
func TestAFollowUpOnTemporalContinuesTheConversationAsInProcess(t *testing.T) {
	hist := []model.Message{{Role: model.RoleUser, Content: "first"}, {Role: model.RoleAssistant, Content: "one"}}
	req := delegation.Request{Agent: "leaf", Task: "second", Conversation: "conv-1", History: hist}

	rt, inHeard, _, _ := conversationRuntime(t)
	want, err := rt.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}

	rt, tHeard, rec, store := conversationRuntime(t)
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := s.NewTestWorkflowEnvironment()
	temporal.Register(env, &temporal.Activities{Steps: rt.Steps(), Flush: rec.Flush})
	env.ExecuteWorkflow(temporal.RunWorkflowName, temporal.RunInput{Run: trace.Run{ID: trace.NewRunID()}, Request: req})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var got temporal.RunResult
	if err := env.GetWorkflowResult(&got); err != nil {
		t.Fatal(err)
	}
	if got.Status != trace.StatusOK || got.Result.Result != "two" || got.Conversation != "conv-1" {
		t.Fatalf("result = %+v, want ok \"two\" in conv-1", got.Result)
	}
	if !reflect.DeepEqual(got.Messages, want.Messages) || len(got.Messages) != 4 {
		t.Errorf("root's messages on Temporal:\n%+v\nin-process:\n%+v", got.Messages, want.Messages)
	}
	if !reflect.DeepEqual(tHeard.msgs, inHeard.msgs) {
		t.Errorf("the model heard on Temporal:\n%+v\nin-process:\n%+v", tHeard.msgs, inHeard.msgs)
	}
	spans, _ := store.Spans(context.Background(), got.RunID)
	for _, sp := range spans {
		if sp.Kind == trace.KindInvokeAgent && sp.Attributes[delegation.AttrConversationID] != "conv-1" {
			t.Errorf("root span names conversation %v, want conv-1", sp.Attributes[delegation.AttrConversationID])
		}
	}
}
