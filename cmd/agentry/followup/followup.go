// Package followup runs the follow-ups of a conversation: `agentry chat
// AGENT`, `agentry run --continue RUN_ID "follow-up"` and serve's reply box
// (docs/orchestrator.md). Each follow-up is a run of its own, linked to the
// conversation (gen_ai.conversation.id), whose root agent starts from the
// conversation's messages, kept in the trace store. `run --continue
// RUN_ID` without a follow-up is budget continuation, not this.
package followup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/conversation"
)

// Store is a trace store that keeps conversations too.
type Store interface {
	trace.Store
	conversation.Store
}

// Runner runs the messages of conversations: Run is the runtime's Run, or
// a submission to Temporal.
type Runner struct {
	Store Store
	Run   func(context.Context, delegation.Request) (delegation.Result, error)
}

// Turn runs one message of conversation conv ("" starts one) and records
// the run and its root agent's new messages in it.
func (r Runner) Turn(ctx context.Context, agent, conv, text, modelSpec string) (delegation.Result, error) {
	req := delegation.Request{Agent: agent, Task: text, Model: modelSpec}
	if conv != "" {
		if err := join(ctx, r.Store, conv, &req); err != nil {
			return delegation.Result{}, err
		}
	}
	res, err := r.Run(ctx, req)
	if err != nil {
		return res, err
	}
	return res, Save(context.WithoutCancel(ctx), r.Store, res, len(req.History))
}

// Save records a run in its conversation with the root agent's messages
// after the first skip (the history it was given).
func Save(ctx context.Context, store Store, res delegation.Result, skip int) error {
	if res.RunID == "" || res.Conversation == "" {
		return nil
	}
	return store.AddConversationRun(ctx, res.Conversation, res.RunID, toStored(res.Messages[min(skip, len(res.Messages)):]))
}

// Of finds runID's conversation and agent, starting a conversation from the
// run's task and result when it has none (a run recorded by serve, or
// before conversations).
func Of(ctx context.Context, store Store, runID string) (conv, agent string, err error) {
	run, err := store.Run(ctx, runID)
	if err != nil {
		return "", "", fmt.Errorf("continue %s: %w", runID, err)
	}
	conv, err = store.ConversationOf(ctx, runID)
	if errors.Is(err, conversation.ErrNone) {
		msgs := []conversation.Message{{Role: string(model.RoleUser), Content: run.Task}, {Role: string(model.RoleAssistant), Content: run.Result}}
		return runID, run.Agent, store.AddConversationRun(ctx, runID, runID, msgs)
	}
	return conv, run.Agent, err
}

// Continue makes req a follow-up in the conversation of run cont.
func Continue(ctx context.Context, store Store, cont string, req *delegation.Request) error {
	conv, _, err := Of(ctx, store, cont)
	if err != nil {
		return err
	}
	return join(ctx, store, conv, req)
}

// join gives req conversation conv and its messages so far.
func join(ctx context.Context, store Store, conv string, req *delegation.Request) error {
	stored, err := store.ConversationMessages(ctx, conv)
	if err != nil {
		return err
	}
	req.Conversation, req.History = conv, fromStored(stored)
	return nil
}

func fromStored(ms []conversation.Message) []model.Message {
	out := make([]model.Message, len(ms))
	for i, m := range ms {
		out[i] = model.Message{Role: model.Role(m.Role), Content: m.Content, ToolCallID: m.ToolCallID}
		if len(m.ToolCalls) > 0 {
			_ = json.Unmarshal(m.ToolCalls, &out[i].ToolCalls) // written by toStored below
		}
	}
	return out
}

func toStored(ms []model.Message) []conversation.Message {
	out := make([]conversation.Message, len(ms))
	for i, m := range ms {
		out[i] = conversation.Message{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID}
		if len(m.ToolCalls) > 0 {
			out[i].ToolCalls, _ = json.Marshal(m.ToolCalls)
		}
	}
	return out
}
