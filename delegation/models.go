package delegation

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/registry"
)

// claudeAliases are Claude Code's model names; when Config.Aliases does not
// map one, the agent runs on the default model and its span says so.
var claudeAliases = map[string]bool{"sonnet": true, "opus": true, "haiku": true}

// resolved is an LLM with the spec that chose it.
type resolved struct {
	llm  model.LLM
	spec string // the spec as written after alias replacement
	// fallback says why the default model was used instead of the agent's.
	fallback string
}

// modelCache builds each spec's LLM once per run, so a script model keeps
// its per-invocation state and a provider client is reused by every branch.
type modelCache struct {
	cfg      Config
	override string

	mu   sync.Mutex
	llms map[string]model.LLM
}

func newModelCache(cfg Config, override string) *modelCache {
	return &modelCache{cfg: cfg, override: override, llms: map[string]model.LLM{}}
}

// forAgent picks the model for agent, whose parent runs on parent (nil at the root).
func (c *modelCache) forAgent(agent registry.Agent, parent *resolved) (resolved, error) {
	spec := strings.TrimSpace(agent.Model)
	if c.override != "" {
		spec = c.override
	}
	switch {
	case spec == "inherit" && parent != nil:
		return *parent, nil
	case spec == "" || spec == "inherit":
		spec = c.cfg.DefaultModel
	}
	var fallback string
	if a, ok := c.cfg.Aliases[spec]; ok {
		spec = a
	} else if claudeAliases[spec] {
		fallback = fmt.Sprintf("model alias %q is not configured (models.aliases); using the default %q", spec, c.cfg.DefaultModel)
		spec = c.cfg.DefaultModel
		if a, ok := c.cfg.Aliases[spec]; ok {
			spec = a
		}
	}
	llm, err := c.get(spec)
	if err != nil {
		return resolved{}, err
	}
	return resolved{llm: llm, spec: spec, fallback: fallback}, nil
}

func (c *modelCache) get(spec string) (model.LLM, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if llm, ok := c.llms[spec]; ok {
		return llm, nil
	}
	llm, err := c.cfg.Models.Resolve(spec, nil)
	if errors.Is(err, model.ErrUnknownProvider) {
		return nil, err // Resolve's error names the spec already
	}
	if err != nil {
		return nil, fmt.Errorf("model %q: %w", spec, err)
	}
	c.llms[spec] = llm
	return llm, nil
}
