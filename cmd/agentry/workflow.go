package main

import (
	"cmp"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
)

// workflowCommand is `agentry workflow`: its subcommands run, validate,
// explain and write YAML workflows of agents (docs/workflows.md).
func (s *session) workflowCommand() *cobra.Command {
	return group("workflow COMMAND",
		"run, explain, validate or write YAML workflows of agents",
		"workflows", "agents", "db")
}

// workflowSetup loads the configuration, the registry agents (an absent
// agents folder is no agents: workflows may use inline agents only) and
// the workflows folder's path.
func (s *session) workflowSetup(cmd *cobra.Command) (config.Config, *registry.Registry, string, error) {
	cfg, err := s.loadConfig(cmd)
	if err != nil {
		return config.Config{}, nil, "", err
	}
	reg := registry.New(nil)
	if info, err := os.Stat(cfg.Agents); err == nil && info.IsDir() {
		snap, err := folder.Load(cfg.Agents, registryOptions(cfg)) // refuses links out of the folder
		if err != nil {
			return config.Config{}, nil, "", configError{fmt.Errorf("load agents: %w", err)}
		}
		reg = registry.New(snap)
	}
	return cfg, reg, cmp.Or(cfg.Workflows, "workflows"), nil
}

func lookupIn(reg *registry.Registry) workflow.Lookup {
	snap := reg.Snapshot()
	return func(name string) bool { _, ok := snap.Agent(name); return ok }
}

// listWorkflows are the names of the workflows folder's workflows, which a
// NAME|FILE argument completes from (a file path works too).
func (s *session) listWorkflows(cmd *cobra.Command) ([]string, error) {
	_, reg, dir, err := s.workflowSetup(cmd)
	if err != nil {
		return nil, err
	}
	return workflowNames(dir, lookupIn(reg)), nil
}
