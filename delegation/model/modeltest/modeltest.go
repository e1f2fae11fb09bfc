package modeltest

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/agentry/agentry/delegation/model"
)

// Subject is one provider as the LLM contract sees it.
type Subject struct {
	// New returns a fresh model whose next calls (at most calls of them, in
	// any order, possibly at once) each answer a plain question with text
	// or tool calls.
	New func(t *testing.T, calls int) model.LLM
	// Hanging returns a model whose next call waits until its context ends.
	Hanging func(t *testing.T) model.LLM
	// Prepare, when set, adapts the request of call i, e.g. to give each
	// call an invocation of its own for providers that keep state per
	// invocation.
	Prepare func(req *model.Request, i int)
}

// Run runs the tests every model.LLM must pass: what the runtime relies on
// when it calls a provider.
func Run(t *testing.T, s Subject) {
	t.Run("its name is a spec the trace can show", s.testName)
	t.Run("it answers a plain question with text or tool calls", s.testAnswer)
	t.Run("it leaves the conversation it is given alone", s.testConversation)
	t.Run("it serves concurrent calls", s.testConcurrent)
	t.Run("a cancelled call ends with context.Canceled and is not retried", s.testCancel)
}

func (s Subject) testName(t *testing.T) {
	llm := s.New(t, 0)
	name := llm.Name()
	if name == "" || strings.ContainsAny(name, " \t\n") || llm.Name() != name {
		t.Fatalf("Name() = %q: want a stable spec without spaces", name)
	}
}

func (s Subject) testAnswer(t *testing.T) {
	resp, err := s.New(t, 1).Generate(t.Context(), s.question(0))
	if err != nil {
		t.Fatal(err)
	}
	if resp == nil || (resp.Text == "" && len(resp.ToolCalls) == 0) || resp.InputTokens < 0 || resp.OutputTokens < 0 {
		t.Fatalf("response = %+v: want text or tool calls and no negative token counts", resp)
	}
	for _, c := range resp.ToolCalls {
		if c.Name == "" {
			t.Fatalf("a tool call without a name: %+v", c)
		}
	}
}

func (s Subject) testConversation(t *testing.T) {
	req := s.question(0)
	req.Messages = append(req.Messages,
		model.Message{Role: model.RoleAssistant, Content: "Let me check.", ToolCalls: []model.ToolCall{{ID: "c1", Name: "lookup", Args: []byte(`{"q":"x"}`)}}},
		model.Message{Role: model.RoleTool, ToolCallID: "c1", Content: "found"},
		model.Message{Role: model.RoleUser, Content: "And now?"})
	before := clone(req.Messages)
	if _, err := s.New(t, 1).Generate(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, req.Messages) {
		t.Fatalf("Generate changed the conversation:\nbefore %+v\nafter  %+v", before, req.Messages)
	}
}

func (s Subject) testConcurrent(t *testing.T) {
	const n = 8
	llm := s.New(t, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			_, err := llm.Generate(t.Context(), s.question(i))
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func (s Subject) testCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := s.Hanging(t).Generate(ctx, s.question(0))
		done <- err
	}()
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Generate after cancel = %v, want context.Canceled", err)
	}
	if _, ok := model.IsTransient(err); ok {
		t.Fatalf("a cancelled call must not be retried, got transient %v", err)
	}
}

// question is call i's request: a plain question, prepared for the subject.
func (s Subject) question(i int) *model.Request {
	req := question()
	if s.Prepare != nil {
		s.Prepare(req, i)
	}
	return req
}

func question() *model.Request {
	return &model.Request{Agent: "geographer", System: "You answer in one sentence.",
		Messages: []model.Message{{Role: model.RoleUser, Content: "What is the capital of France?"}}}
}

func clone(msgs []model.Message) []model.Message {
	out := make([]model.Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		out[i].ToolCalls = nil
		for _, c := range m.ToolCalls {
			c.Args = append([]byte(nil), c.Args...)
			out[i].ToolCalls = append(out[i].ToolCalls, c)
		}
	}
	return out
}
