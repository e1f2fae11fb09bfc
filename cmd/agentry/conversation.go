package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"encoding/json"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// Conversations (docs/orchestrator.md): `agentry chat AGENT` and `agentry
// run --continue RUN_ID "follow-up"`. Each follow-up is a run of its own,
// linked to the conversation (gen_ai.conversation.id), whose root agent
// starts from the conversation's messages, kept in the trace database.
// `run --continue RUN_ID` without a follow-up belongs to budget
// continuation, not here.

// conversationEnv is what a conversation's runs share: the agents, the
// trace store and recorder, and one runtime, so the runs of a chat share
// its sliding window of tool calls.
type conversationEnv struct {
	reg   *registry.Registry
	store conversationStore
	rec   *trace.Recorder
	rt    *delegation.Runtime
	close func()
	// run runs one message: rt.Run, or a submission to Temporal
	// (conversation_temporal.go).
	run func(context.Context, delegation.Request) (delegation.Result, error)
}

func (s *session) openConversation(ctx context.Context, cfg Config, asJSON bool) (*conversationEnv, error) {
	reg, closeAgents, err := s.openAgents(ctx, cfg, false)
	if err != nil {
		return nil, err
	}
	store, err := openConversationStore(cfg.DB)
	if err != nil {
		closeAgents()
		return nil, err
	}
	s.recordVersions(ctx, store, reg.Snapshot())
	logger := slog.New(slog.NewTextHandler(s.stderr, &slog.HandlerOptions{Level: slog.LevelWarn, ReplaceAttr: trace.RedactAttr}))
	rec := trace.NewRecorder(store, trace.RecorderConfig{Logger: logger})
	var sink trace.Sink = trace.Tee(rec, &progress{w: s.stdout})
	if asJSON { // stdout is the result alone
		sink = trace.Tee(rec, &progress{w: s.stderr, warningsOnly: true})
	}
	rt, stopTools, err := s.newRuntime(ctx, cfg, reg, sink, logger)
	if err != nil {
		rec.Close(context.Background())
		store.Close()
		closeAgents()
		return nil, err
	}
	env := &conversationEnv{reg: reg, store: store, rec: rec, rt: rt, run: rt.Run, close: func() {
		stopTools()
		rec.Close(context.Background())
		store.Close()
		closeAgents()
	}}
	if cfg.Engine == EngineTemporal {
		if err := s.conversationOnTemporal(ctx, cfg, env, logger, asJSON); err != nil {
			env.close()
			return nil, err
		}
	}
	return env, nil
}

// turn runs one message of a conversation ("" starts one) and records the
// run and its root agent's new messages in it.
func (c *conversationEnv) turn(ctx context.Context, agent, conv, text, modelSpec string) (delegation.Result, error) {
	var hist []model.Message
	if conv != "" {
		stored, err := c.store.ConversationMessages(ctx, conv)
		if err != nil {
			return delegation.Result{}, err
		}
		hist = fromStored(stored)
	}
	res, err := c.run(ctx, delegation.Request{Agent: agent, Task: text, Model: modelSpec, Conversation: conv, History: hist})
	if err != nil {
		return res, err
	}
	return res, saveConversation(context.WithoutCancel(ctx), c.store, res, len(hist))
}

// saveConversation records a run in its conversation with the root agent's
// messages after the first skip (the history it was given).
func saveConversation(ctx context.Context, store conversationStore, res delegation.Result, skip int) error {
	if res.RunID == "" || res.Conversation == "" {
		return nil
	}
	return store.AddConversationRun(ctx, res.Conversation, res.RunID, toStored(res.Messages[min(skip, len(res.Messages)):]))
}

// followUp is `agentry run --continue RUN_ID FOLLOW-UP`: a new run of
// RUN_ID's agent in RUN_ID's conversation. A run recorded without a
// conversation (by serve, or before conversations) starts one from its task
// and result.
func (s *session) followUp(ctx context.Context, cfg Config, runID, text, modelSpec string, asJSON bool) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	env, err := s.openConversation(ctx, cfg, asJSON)
	if err != nil {
		return s.fail(err)
	}
	defer env.close()
	conv, agent, err := env.conversationOf(ctx, runID)
	if err != nil {
		return s.fail(err)
	}
	res, err := env.turn(ctx, agent, conv, text, modelSpec)
	if err != nil {
		return s.fail(err)
	}
	printResult(s.stdout, res, asJSON)
	if res.Status != trace.StatusOK {
		return 1
	}
	return 0
}

// conversationOf finds runID's conversation and agent, starting a
// conversation from the run's task and result when it has none.
func (c *conversationEnv) conversationOf(ctx context.Context, runID string) (conv, agent string, err error) {
	return conversationOf(ctx, c.store, runID)
}

func conversationOf(ctx context.Context, store conversationStore, runID string) (conv, agent string, err error) {
	run, err := store.Run(ctx, runID)
	if err != nil {
		return "", "", fmt.Errorf("continue %s: %w", runID, err)
	}
	conv, err = store.ConversationOf(ctx, runID)
	if errors.Is(err, trace.ErrNoConversation) {
		msgs := []trace.ConversationMessage{{Role: string(model.RoleUser), Content: run.Task}, {Role: string(model.RoleAssistant), Content: run.Result}}
		return runID, run.Agent, store.AddConversationRun(ctx, runID, runID, msgs)
	}
	return conv, run.Agent, err
}

// chatCommand is `agentry chat AGENT`: a conversation in the terminal, one
// run per line typed, until end of input or /exit.
func chatCommand(ctx context.Context, s *session, args []string) int {
	fs := s.flagSet("chat")
	modelSpec := fs.String("model", "", "the model `SPEC` for every agent of the conversation")
	rest, code, ok := s.parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) != 1 {
		return s.usageError(fs, "chat needs exactly one AGENT")
	}
	cfg, err := s.loadConfig(fs)
	if err != nil {
		return s.badConfig(err)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	env, err := s.openConversation(ctx, cfg, false)
	if err != nil {
		return s.fail(err)
	}
	defer env.close()
	if err := s.checkStart(env.reg.Snapshot(), cfg, rest[0], *modelSpec); err != nil {
		return s.fail(err)
	}
	fmt.Fprintf(s.stdout, "chat with %s: one message per line; end with /exit or Ctrl-D\n", rest[0])
	in := bufio.NewScanner(s.stdin)
	in.Buffer(make([]byte, 64*1024), 1<<20)
	conv, code := "", 0
	for fmt.Fprint(s.stdout, "> "); in.Scan(); fmt.Fprint(s.stdout, "> ") {
		line := strings.TrimSpace(in.Text())
		if line == "/exit" {
			break
		}
		if line == "" {
			continue
		}
		res, err := env.turn(ctx, rest[0], conv, line, *modelSpec)
		if err != nil {
			return s.fail(err)
		}
		conv = res.Conversation
		printResult(s.stdout, res, false)
		if code = 0; res.Status != trace.StatusOK {
			code = 1
		}
		if ctx.Err() != nil {
			break
		}
	}
	fmt.Fprintln(s.stdout)
	return code
}

func fromStored(ms []trace.ConversationMessage) []model.Message {
	out := make([]model.Message, len(ms))
	for i, m := range ms {
		out[i] = model.Message{Role: model.Role(m.Role), Content: m.Content, ToolCallID: m.ToolCallID}
		if len(m.ToolCalls) > 0 {
			_ = json.Unmarshal(m.ToolCalls, &out[i].ToolCalls) // written by toStored below
		}
	}
	return out
}

func toStored(ms []model.Message) []trace.ConversationMessage {
	out := make([]trace.ConversationMessage, len(ms))
	for i, m := range ms {
		out[i] = trace.ConversationMessage{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID}
		if len(m.ToolCalls) > 0 {
			out[i].ToolCalls, _ = json.Marshal(m.ToolCalls)
		}
	}
	return out
}

// conversationStore is a trace store that keeps conversations too.
type conversationStore interface {
	trace.Store
	trace.ConversationStore
}

// openConversationStore opens db for a command that continues runs, and
// refuses a store that cannot keep conversations rather than losing them.
func openConversationStore(db string) (conversationStore, error) {
	st, err := openStore(db)
	if err != nil {
		return nil, err
	}
	cs, ok := st.(conversationStore)
	if !ok {
		st.Close()
		return nil, errors.New("this trace store keeps no conversations (chat and run --continue need the SQLite or PostgreSQL store)")
	}
	return cs, nil
}
