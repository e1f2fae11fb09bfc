package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// runSlashCommand runs a Claude Code slash command as a task (run
// --command NAME "ARGS", docs/plugins.md): its prompt with the arguments
// put in is the task of an agent made from the command (registry.Command
// .Agent), which may use only the tools its allowed-tools names. It runs
// in this process whatever the engine: the command's agent is no file a
// worker could load.
func (s *session) runSlashCommand(ctx context.Context, fs *flag.FlagSet, name, args, modelSpec string, asJSON bool, rf *runFlags) int {
	cfg, err := s.loadConfig(fs)
	if err != nil {
		return s.badConfig(err)
	}
	reg, closeAgents, err := s.openAgents(ctx, cfg, false)
	if err != nil {
		return s.fail(err)
	}
	defer closeAgents()
	c, err := s.findCommand(name)
	if err != nil {
		if asJSON {
			printResult(s.stdout, delegation.Result{Status: trace.StatusError, Error: err.Error()}, true)
		}
		return s.fail(err)
	}
	a := c.Agent()
	if modelSpec != "" {
		if err := s.checkModel(cfg, modelSpec); err != nil {
			return s.fail(err)
		}
	}
	store, err := openStore(cfg.DB)
	if err != nil {
		return s.fail(err)
	}
	defer store.Close()
	req := delegation.Request{Agent: a.Name, Inline: &a, Task: c.Expand(args), Model: modelSpec, Budget: rf.budget()}
	return s.runInProcess(ctx, cfg, reg, store, req, asJSON, s.newCLIAsker(rf, cfg.approvalTimeout()))
}

// findCommand finds a served command by id ("plugin:name" too), or says
// which there are.
func (s *session) findCommand(name string) (registry.Command, error) {
	if s.lib == nil {
		return registry.Command{}, fmt.Errorf("command %q: no commands are loaded", name)
	}
	lib := s.lib.Snapshot()
	if c, ok := lib.Command(strings.TrimPrefix(name, "/")); ok {
		return c, nil
	}
	var ids []string
	for _, c := range lib.Commands() {
		ids = append(ids, c.ID)
	}
	if len(ids) == 0 {
		return registry.Command{}, fmt.Errorf("%w %q: there are no commands (.claude/commands/*.md, or a plugin's commands/: agentry plugins add PATH)", registry.ErrUnknownCommand, name)
	}
	return registry.Command{}, fmt.Errorf("%w %q%s; the commands are %s", registry.ErrUnknownCommand, name, didYouMean(name, ids, ""), strings.Join(ids, ", "))
}
