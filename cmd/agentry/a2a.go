package main

import (
	"context"
	"log/slog"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/a2a"
	"github.com/agentry/agentry/registry"
)

// remoteAgents are the a2a: section's agents as the runtime's remote
// sub-agents, their cards fetched now. A card that cannot be fetched, a
// token variable that is empty, an id an agent file already has: each is
// a warning naming the agent and the rest works on (docs/a2a.md).
func (s *session) remoteAgents(ctx context.Context, cfg config.Config, reg interface{ Snapshot() *registry.Snapshot }, log *slog.Logger) []delegation.RemoteAgent {
	if len(cfg.A2A) == 0 {
		return nil
	}
	if log == nil {
		log = slog.Default()
	}
	agents := a2aAgents(cfg)
	for i, c := range cfg.A2A {
		if c.TokenEnv != "" {
			if agents[i].Token = s.getenv(c.TokenEnv); agents[i].Token == "" {
				log.Warn("a2a: token_env names an empty or unset variable; the agent is called without a token", "card", c.Card, "token_env", c.TokenEnv)
			}
		}
	}
	out, problems := a2a.Resolve(ctx, agents, nil)
	for _, err := range problems {
		log.Warn(err.Error())
	}
	snap := reg.Snapshot()
	for _, ra := range out {
		if _, ok := snap.Agent(ra.Name); ok {
			log.Warn("a2a: an agent file has the remote agent's id; delegations to it go to the file's agent", "agent", ra.Name)
		}
	}
	return out
}

// a2aAgents are the a2a: section's entries, without their tokens.
func a2aAgents(cfg config.Config) []a2a.Agent {
	agents := make([]a2a.Agent, len(cfg.A2A))
	for i, c := range cfg.A2A {
		agents[i] = a2a.Agent{Card: c.Card, ID: c.ID, Description: c.Description, Timeout: c.Timeout.D()}
	}
	return agents
}
