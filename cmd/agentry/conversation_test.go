package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/sqlite"
	"github.com/agentry/agentry/web/core"
)

func runJSON(t *testing.T, dir string, args ...string) delegation.Result {
	t.Helper()
	s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
	if code := s.main(context.Background(), append([]string{"run"}, append(args, "--json")...)); code != 0 {
		t.Fatalf("run %v: exit %d, stderr %s", args, code, errOut)
	}
	var res delegation.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("stdout %q: %v", out, err)
	}
	return res
}

func TestAFollowUpRunsInTheConversationWithItsMessages(t *testing.T) {
	dir, agents, db, sc := runFixture(t)
	first := runJSON(t, dir, "coord", "do it", "--agents", agents, "--db", db, "--model", "script:"+sc)
	next := runJSON(t, dir, "--continue", first.RunID, "and then?", "--agents", agents, "--db", db, "--model", "script:"+sc)
	if next.RunID == first.RunID || next.Conversation != first.RunID || next.Status != "ok" {
		t.Fatalf("follow-up = %+v, want a new run in %s's conversation", next, first.RunID)
	}
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	msgs, err := store.ConversationMessages(ctx, first.RunID)
	if err != nil || len(msgs) != 8 || msgs[0].Content != "do it" || msgs[4].Content != "and then?" || msgs[7].Content != "all done" {
		t.Fatalf("conversation messages = %+v, %v; want both runs' root messages", msgs, err)
	}
	if len(msgs[1].ToolCalls) == 0 || !strings.Contains(string(msgs[1].ToolCalls), "delegate") {
		t.Errorf("the orchestrator's tool call was not kept: %+v", msgs[1])
	}
	spans, _ := store.Spans(ctx, next.RunID)
	if spans[0].Attributes[delegation.AttrConversationID] != first.RunID {
		t.Errorf("follow-up root span attributes = %v, want gen_ai.conversation.id %s", spans[0].Attributes, first.RunID)
	}
	convs, err := store.ConversationIDs(ctx, []string{first.RunID, next.RunID})
	if err != nil || convs[first.RunID] != first.RunID || convs[next.RunID] != first.RunID {
		t.Errorf("conversation of the runs = %v, %v; want both in the first run's", convs, err)
	}
}

func TestChatRunsEachLineAsAFollowUpOfOneConversation(t *testing.T) {
	dir, agents, db, sc := runFixture(t)
	s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
	s.stdin = strings.NewReader("hello\n\nagain\n/exit\nnever\n")
	if code := s.main(context.Background(), []string{"chat", "coord", "--agents", agents, "--db", db, "--model", "script:" + sc}); code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	if n := strings.Count(out.String(), "all done"); n != 2 {
		t.Fatalf("stdout has %d answers, want 2:\n%s", n, out)
	}
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	page, _ := store.Runs(context.Background(), trace.RunFilter{})
	var ids []string
	for _, r := range page.Runs {
		ids = append(ids, r.ID)
	}
	convs, _ := store.ConversationIDs(context.Background(), ids)
	if len(ids) != 2 || convs[ids[0]] != convs[ids[1]] || convs[ids[0]] == "" {
		t.Fatalf("runs %v in conversations %+v, want two runs of one", ids, convs)
	}
}

func TestTheServersRunnerRecordsRunsAndRepliesInTheirConversation(t *testing.T) {
	dir, agents, db, sc := runFixture(t)
	s, _, _ := testSession()
	cfg := config.Default()
	cfg.Agents, cfg.DB, cfg.Workspace = agents, db, dir
	ctx := context.Background()
	reg, closeAgents, err := s.openAgents(ctx, cfg, false)
	if err != nil {
		t.Fatal(err)
	}
	defer closeAgents()
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	rec := trace.NewRecorder(store, trace.RecorderConfig{})
	defer rec.Close(ctx)
	rt, stopTools, err := s.newRuntime(ctx, cfg, reg, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stopTools()
	u := &uiRunner{rt: rt, rec: rec, store: store, log: slog.New(slog.DiscardHandler)}
	first, err := u.Start(ctx, core.RunRequest{Agent: "coord", Task: "do it", Model: "script:" + sc})
	if err != nil {
		t.Fatal(err)
	}
	<-first.Done()
	u.wait(10*time.Second, nil)
	reply, err := u.Start(ctx, core.RunRequest{Agent: "coord", Task: "and then?", Model: "script:" + sc, Continue: first.RunID()})
	if err != nil {
		t.Fatal(err)
	}
	<-reply.Done()
	u.wait(10*time.Second, nil)
	msgs, err := store.ConversationMessages(ctx, first.RunID())
	if err != nil || len(msgs) != 8 || msgs[4].Content != "and then?" {
		t.Fatalf("conversation = %+v, %v; want both runs' messages", msgs, err)
	}
	if conv, _ := store.ConversationOf(ctx, reply.RunID()); conv != first.RunID() {
		t.Errorf("the reply is in conversation %q, want %q", conv, first.RunID())
	}
}
