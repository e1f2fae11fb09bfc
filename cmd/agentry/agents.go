package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
)

// registryOptions is what validation needs to know beyond the files themselves.
func registryOptions(cfg Config) registry.Options {
	return registry.Options{KnownTools: knownTools(cfg), Disabled: cfg.Permissions.DisabledAgents}
}

// openAgents loads the agents folder. With watch, the registry follows the
// folder until close is called; without, it is a one-off snapshot.
func (s *session) openAgents(ctx context.Context, cfg Config, watch bool) (reg *registry.Registry, close func() error, err error) {
	if info, err := os.Stat(cfg.Agents); err != nil || !info.IsDir() {
		return nil, nil, fmt.Errorf("agents folder %q: not a readable folder", cfg.Agents)
	}
	if !watch {
		snap, err := folder.Load(cfg.Agents, registryOptions(cfg)) // refuses links out of the folder
		if err != nil {
			return nil, nil, fmt.Errorf("load agents: %w", err)
		}
		return registry.New(snap), func() error { return nil }, nil
	}
	reg = registry.New(nil)
	f, err := folder.Open(cfg.Agents, reg, registryOptions(cfg), slog.New(slog.NewTextHandler(s.stderr, nil)))
	if err != nil {
		return nil, nil, fmt.Errorf("watch agents: %w", err)
	}
	return reg, f.Close, nil
}
