package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/cost"
	"github.com/agentry/agentry/delegation/hooks"
)

// observers builds the runtime's hook runner and price table from cfg.
// known is the runtime's tool names, for mapping Claude Code matchers. The
// hooks are nil when none are configured, so the runtime skips them.
func observers(cfg config.Config, known []string, log *slog.Logger) (control.Hooks, control.Prices, error) {
	prices, err := cost.New(cfg.Prices)
	if err != nil {
		return nil, nil, fmt.Errorf("config: %w", err)
	}
	set := cfg.Hooks.Points
	claude := [][]byte{}
	if cfg.Hooks.Claude != nil {
		claude = append(claude, cfg.Hooks.Claude)
	}
	for _, path := range cfg.Hooks.ClaudeSettings {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, fmt.Errorf("config: hooks.claude_settings: %w", err)
		}
		claude = append(claude, data)
	}
	claude = append(claude, cfg.Hooks.Plugins...)
	for _, data := range claude {
		more, warnings, err := hooks.LoadClaude(data, known)
		if err != nil {
			return nil, nil, fmt.Errorf("config: hooks: %w", err)
		}
		for _, w := range warnings {
			log.Warn("hooks: " + w)
		}
		set = set.Merge(more)
	}
	if len(set) == 0 {
		return nil, prices, nil
	}
	dir, err := filepath.Abs(cfg.Workspace)
	if err != nil {
		return nil, nil, fmt.Errorf("config: workspace: %w", err)
	}
	runner, err := hooks.New(set, dir)
	if err != nil {
		return nil, nil, fmt.Errorf("config: %w", err)
	}
	return runner, prices, nil
}
