package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/replay"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/compare"
)

// replayOptions are `agentry run --replay`'s flags.
type replayOptions struct {
	run      string
	versions []string
	live     bool
}

func addReplayFlags(fs *pflag.FlagSet, o *replayOptions) {
	fs.StringVar(&o.run, "replay", "", "run recorded run `RUN_ID`'s task again with today's agent files, its tool calls answered from the recording")
	fs.StringArrayVar(&o.versions, "version", nil, "with --replay, run the agent of `AGENT=HASH` at its stored version HASH (agentry history lists them); repeatable")
	fs.BoolVar(&o.live, "live-tools", false, "with --replay, run tool calls the recording does not hold for real instead of refusing them")
}

// asked reports whether any replay flag was given.
func (o *replayOptions) asked() bool { return o.run != "" || o.live || len(o.versions) > 0 }

// replayRun runs a recorded run's root task again (docs/replay.md): with
// today's agent files, or another folder's (--agents), or stored versions
// of some agents (--version); tool calls that match the recording are
// answered from it, the others refused unless --live-tools. Delegations
// and model calls run anew.
func (s *session) replayRun(cmd *cobra.Command, args []string, o *runOptions) error {
	rf := &o.replay
	switch {
	case rf.run == "":
		return usage(cmd, "--version and --live-tools go with --replay")
	case o.cont != "":
		return usage(cmd, "--replay and --continue are two kinds of run; give one")
	case len(args) > 0:
		return usage(cmd, "run --replay takes no AGENT or TASK: it runs the recorded run's (got %q)", strings.Join(args, " "))
	}
	for _, spec := range rf.versions {
		agent, hash, ok := strings.Cut(spec, "=")
		if !ok || agent == "" || hash == "" {
			return usage(cmd, "--version %q: want AGENT=HASH", spec)
		}
		if err := checkHashFlag(cmd, "--version "+agent, hash); err != nil {
			return err
		}
	}
	op, err := s.open(cmd, readStore) // no database: no run to replay
	if errors.As(err, &noDBError{}) {
		return s.refused(err, o.asJSON)
	}
	if err != nil {
		return err
	}
	defer op.Close()
	ctx := cmd.Context()
	doc, snap, err := s.replaySource(cmd, op, rf)
	if err != nil {
		return s.refused(err, o.asJSON)
	}
	if err := s.checkStart(snap, op.cfg, doc.Run.Agent, o.model); err != nil {
		return s.refused(err, o.asJSON)
	}
	rec := replay.New(doc.Run.ID, doc.Spans)
	req := delegation.Request{Agent: doc.Run.Agent, Task: doc.Run.Task, Model: o.model, Budget: o.requestBudget(),
		Attributes: map[string]any{replay.AttrReplayOf: doc.Run.ID}}
	res, closeErr, err := s.execute(ctx, op.cfg, registry.New(snap), op.store, req, o.asJSON, s.asker(o, op.cfg),
		func(c *delegation.Config) { c.Tools = rec.Tools(c.Tools, rf.live) })
	if err != nil {
		return err
	}
	s.printReplay(ctx, op.store, doc, res, rec, o.asJSON)
	if res.Status != trace.StatusOK || closeErr != nil {
		return exitCode(1)
	}
	return nil
}

// replaySource is the recorded run rf names and the agents its replay
// runs: the folder's (recorded as versions unless --agents chose another
// folder), with the stored versions --version asks for.
func (s *session) replaySource(cmd *cobra.Command, op *opened, rf *replayOptions) (trace.Document, *registry.Snapshot, error) {
	ctx := cmd.Context()
	doc, err := op.store.Export(ctx, rf.run)
	if err != nil {
		return doc, nil, fmt.Errorf("replay %s: %w", rf.run, err)
	}
	if err := ofACommand(doc.Run.Agent, "replayed"); err != nil {
		return doc, nil, err
	}
	if isWorkflowRun(doc) {
		return doc, nil, fmt.Errorf("replay %s: it is a workflow run; replay replays agent runs (run the workflow again with agentry workflow run)", doc.Run.ID)
	}
	snap, err := folder.Load(op.cfg.Agents, registryOptions(op.cfg))
	if err != nil {
		return doc, nil, fmt.Errorf("load agents: %w", err)
	}
	if !cmd.Flags().Changed("agents") {
		s.recordVersions(ctx, op.store, snap)
	}
	snap, err = s.withVersions(ctx, op.store, snap, rf.versions)
	return doc, snap, err
}

// printReplay prints the replay's result and what the recording answered;
// as text, also how it differs from the original and where to compare them.
func (s *session) printReplay(ctx context.Context, store trace.Store, doc trace.Document, res delegation.Result, rec *replay.Recording, asJSON bool) {
	if asJSON {
		json.NewEncoder(s.stdout).Encode(struct {
			delegation.Result
			ReplayOf string `json:"replay_of"`
			Replayed int64  `json:"replayed"`
			Refused  int64  `json:"refused"`
			Live     int64  `json:"live"`
		}{res, doc.Run.ID, rec.Replayed(), rec.Refused(), rec.Live()})
		return
	}
	printResult(s.stdout, res, false)
	fmt.Fprintf(s.stdout, "\nreplay of run %s: %d tool calls answered from the recording, %d refused, %d run live\n",
		doc.Run.ID, rec.Replayed(), rec.Refused(), rec.Live())
	if now, err := store.Export(ctx, res.RunID); err == nil {
		fmt.Fprintf(s.stdout, "against the original: %s\n", compare.Runs(doc, now).Summary())
	}
	fmt.Fprintf(s.stdout, "compare them in the browser: /runs/%s/diff/%s\n", doc.Run.ID, res.RunID)
}

// isWorkflowRun reports whether doc's root is a workflow.
func isWorkflowRun(doc trace.Document) bool {
	for _, sp := range doc.Spans {
		if sp.ParentID == "" {
			return sp.Kind == trace.KindInvokeWorkflow
		}
	}
	return false
}

// withVersions is snap with each AGENT=HASH of specs at its stored version.
func (s *session) withVersions(ctx context.Context, vs trace.VersionStore, snap *registry.Snapshot, specs []string) (*registry.Snapshot, error) {
	if len(specs) == 0 {
		return snap, nil
	}
	for _, spec := range specs {
		agent, hash, ok := strings.Cut(spec, "=")
		if !ok || agent == "" || hash == "" {
			return nil, fmt.Errorf("--version %q: want AGENT=HASH", spec)
		}
		v, err := vs.Version(ctx, registry.KindAgent, agent, hash)
		if err != nil {
			return nil, fmt.Errorf("--version %s: %w", spec, err)
		}
		if snap, err = withVersion(snap, agent, v); err != nil {
			return nil, fmt.Errorf("--version %s: %w", spec, err)
		}
	}
	return snap, nil
}
