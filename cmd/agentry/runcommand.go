package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/cmd/agentry/suggest"
	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/registry/skills"
)

// runSlashCommand runs a Claude Code slash command as a task (run
// --command NAME "ARGS", docs/plugins.md): its prompt with the arguments
// put in is the task of an agent made from the command (skills.Command
// .Agent), which may use only the tools its allowed-tools names. It runs
// in this process whatever the engine: the command's agent is no file a
// worker could load.
func (s *session) runSlashCommand(cmd *cobra.Command, args string, o *runOptions) error {
	op, err := s.open(cmd, agentsFolder)
	if err != nil {
		return err
	}
	defer op.Close()
	ctx, cfg := cmd.Context(), op.cfg
	c, err := s.findCommand(o.command)
	if err == nil && o.model != "" {
		err = s.checkModel(cfg, o.model)
	}
	if err != nil {
		return s.refused(err, o.asJSON)
	}
	a := c.Agent()
	store, err := openStore(cfg.DB)
	if err != nil {
		return err
	}
	defer store.Close()
	req := delegation.Request{Agent: a.Name, Inline: &a, Task: c.Expand(args), Model: o.model, Budget: o.requestBudget()}
	return s.runInProcess(ctx, cfg, op.reg, store, req, o.asJSON, s.asker(o, cfg))
}

// ofACommand refuses to continue or replay (what) a run of a slash
// command: its agent, "/ID" (skills.Command.Agent), was made from the
// command for that run and is no file to run again.
func ofACommand(agent, what string) error {
	if id, ok := strings.CutPrefix(agent, "/"); ok {
		return fmt.Errorf("a run of the slash command %s cannot be %s: its agent was made from the command, not read from a file; run the command again: agentry run --command %s \"ARGS\"", id, what, id)
	}
	return nil
}

// findCommand finds a served command by id ("plugin.name" too), or says
// which there are.
func (s *session) findCommand(name string) (skills.Command, error) {
	if s.lib == nil {
		return skills.Command{}, fmt.Errorf("command %q: no commands are loaded", name)
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
		return skills.Command{}, fmt.Errorf("%w %q: there are no commands (.claude/commands/*.md, or a plugin's commands/: agentry plugins add PATH)", skills.ErrUnknownCommand, name)
	}
	return skills.Command{}, fmt.Errorf("%w %q%s; the commands are %s", skills.ErrUnknownCommand, name, suggest.DidYouMean(name, ids, ""), strings.Join(ids, ", "))
}
