package tracetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/agentry/agentry/trace/conversation"
)

// OpenConversationsFunc returns a fresh, empty conversation store for one
// test; the opener closes it when the test ends.
type OpenConversationsFunc func(t *testing.T) conversation.Store

// RunConversationTests is the conformance suite of conversation.Store.
func RunConversationTests(t *testing.T, open OpenConversationsFunc) {
	runCases(t, []testCase[conversation.Store]{
		{"a follow-up appends its run and messages in order", testConversationFollowUp},
		{"a run outside any conversation says so", testConversationNone},
		{"conversations keep their runs and messages apart", testConversationsApart},
		{"concurrent follow-ups to one conversation lose nothing", testConversationRace},
	}, open)
}

func mustAdd(t *testing.T, s conversation.Store, conv, runID string, msgs ...conversation.Message) {
	t.Helper()
	if err := s.AddConversationRun(ctx(t), conv, runID, msgs); err != nil {
		t.Fatalf("AddConversationRun(%s, %s): %v", conv, runID, err)
	}
}

func mustMessages(t *testing.T, s conversation.Store, conv string) []conversation.Message {
	t.Helper()
	msgs, err := s.ConversationMessages(ctx(t), conv)
	if err != nil {
		t.Fatalf("ConversationMessages(%s): %v", conv, err)
	}
	return msgs
}

func testConversationFollowUp(t *testing.T, s conversation.Store) {
	calls := json.RawMessage(`[{"id":"c1","name":"shell.run","arguments":"{\"command\":\"ls\"}"}]`)
	first := []conversation.Message{
		{Role: "user", Content: "list the files"},
		{Role: "assistant", ToolCalls: calls},
		{Role: "tool", Content: "a.go\nb.go", ToolCallID: "c1"},
		{Role: "assistant", Content: "two files: a.go and b.go"},
	}
	mustAdd(t, s, "r1", "r1", first...)
	next := []conversation.Message{{Role: "user", Content: "and the biggest?"}, {Role: "assistant", Content: "b.go — 2 kB"}}
	mustAdd(t, s, "r1", "r2", next...)
	mustAdd(t, s, "r1", "r3") // a run that added no message still belongs
	got := mustMessages(t, s, "r1")
	if want := append(append([]conversation.Message{}, first...), next...); !reflect.DeepEqual(got, want) {
		t.Errorf("messages =\n%+v\nwant\n%+v", got, want)
	}
	for _, id := range []string{"r1", "r2", "r3"} {
		if conv, err := s.ConversationOf(ctx(t), id); conv != "r1" || err != nil {
			t.Errorf("ConversationOf(%s) = %q, %v; want r1", id, conv, err)
		}
	}
	ids, err := s.ConversationIDs(ctx(t), []string{"r3", "nope", "r1"})
	if want := map[string]string{"r1": "r1", "r3": "r1"}; err != nil || !reflect.DeepEqual(ids, want) {
		t.Errorf("ConversationIDs = %v, %v; want %v", ids, err, want)
	}
}

func testConversationNone(t *testing.T, s conversation.Store) {
	if conv, err := s.ConversationOf(ctx(t), "alone"); !errors.Is(err, conversation.ErrNone) {
		t.Errorf("ConversationOf(alone) = %q, %v; want conversation.ErrNone", conv, err)
	}
	if msgs := mustMessages(t, s, "none"); len(msgs) != 0 {
		t.Errorf("messages of no conversation = %+v", msgs)
	}
	if ids, err := s.ConversationIDs(ctx(t), []string{"alone"}); err != nil || len(ids) != 0 {
		t.Errorf("ConversationIDs(alone) = %v, %v; want none", ids, err)
	}
	if ids, err := s.ConversationIDs(ctx(t), nil); err != nil || len(ids) != 0 {
		t.Errorf("ConversationIDs(nil) = %v, %v; want none", ids, err)
	}
}

func testConversationsApart(t *testing.T, s conversation.Store) {
	mustAdd(t, s, "a", "a", conversation.Message{Role: "user", Content: "a1"})
	mustAdd(t, s, "b", "b", conversation.Message{Role: "user", Content: "b1"})
	mustAdd(t, s, "a", "a2", conversation.Message{Role: "user", Content: "a2"})
	for conv, want := range map[string][]string{"a": {"a1", "a2"}, "b": {"b1"}} {
		var got []string
		for _, m := range mustMessages(t, s, conv) {
			got = append(got, m.Content)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("conversation %s = %v, want %v", conv, got, want)
		}
	}
}

// testConversationRace: two replies to one conversation at once (two
// serve instances, or two tabs) both land, each run's messages together
// and in order.
func testConversationRace(t *testing.T, s conversation.Store) {
	mustAdd(t, s, "c", "c", conversation.Message{Role: "user", Content: "start"})
	const n = 6
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			run := fmt.Sprintf("c-%d", i)
			msgs := []conversation.Message{{Role: "user", Content: run + " q"}, {Role: "assistant", Content: run + " a"}}
			if err := s.AddConversationRun(ctx(t), "c", run, msgs); err != nil {
				t.Errorf("follow-up %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	msgs := mustMessages(t, s, "c")
	if len(msgs) != 1+2*n {
		t.Fatalf("%d messages, want %d", len(msgs), 1+2*n)
	}
	seen := map[string]bool{}
	for i := 1; i < len(msgs); i += 2 {
		q, a := msgs[i].Content, msgs[i+1].Content
		run := q[:len(q)-2]
		if q != run+" q" || a != run+" a" || seen[run] {
			t.Errorf("messages %d-%d = %q, %q; want one run's question then its answer", i, i+1, q, a)
		}
		seen[run] = true
	}
	ids, err := s.ConversationIDs(ctx(t), []string{"c-0", "c-5"})
	if err != nil || ids["c-0"] != "c" || ids["c-5"] != "c" {
		t.Errorf("ConversationIDs = %v, %v", ids, err)
	}
}
