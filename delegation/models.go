package delegation

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace/semconv"
)

// AttrModelFallback is the invoke_agent span attribute that says why the
// agent runs on the default model instead of the one its file names.
const AttrModelFallback = "model_fallback"

// resolved is an LLM with the spec that chose it.
type resolved struct {
	llm  model.LLM
	spec string // the provider:model spec after resolution
	// fallback says why the default model was used instead of the agent's.
	fallback string
	// The chat spans' name and first attempt's attributes, made once per
	// run and model (read-only; zero when built outside the cache).
	chat      string
	chatAttrs map[string]any
}

// specAttr is spec as an attribute value, the one made for chatAttrs when
// there is one.
func (r resolved) specAttr() any {
	if v, ok := r.chatAttrs[semconv.AttrModel]; ok {
		return v
	}
	return r.spec
}

func newResolved(llm model.LLM, spec string) resolved {
	return resolved{llm: llm, spec: spec, chat: "chat " + llm.Name(),
		chatAttrs: map[string]any{semconv.AttrModel: spec, semconv.AttrRetryAttempt: 0}}
}

// modelCache builds each spec's LLM once per run, so a script model keeps
// its per-invocation state and a provider client is reused by every branch.
type modelCache struct {
	cfg      Config
	override string

	specs *specCache // the runtime's

	mu   sync.Mutex
	llms map[string]resolved
}

func (r *Runtime) newModelCache(override string) *modelCache {
	return &modelCache{cfg: r.cfg, override: override, specs: &r.specs, llms: map[string]resolved{}}
}

// specCache remembers what ResolveModel answered for each name: the answer
// depends only on the name and the runtime's fixed aliases and providers,
// and working it out (regular expressions, case folding) took about a
// microsecond of every delegation. It stops growing at maxSpecs names.
type specCache struct {
	mu sync.Mutex
	m  map[string]string
}

const maxSpecs = 1024

func (c *modelCache) resolveName(name string) (string, error) {
	s := c.specs
	s.mu.Lock()
	spec, ok := s.m[name]
	s.mu.Unlock()
	if ok {
		return spec, nil
	}
	spec, err := ResolveModel(name, c.cfg.Aliases, c.cfg.Models)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	if s.m == nil {
		s.m = map[string]string{}
	}
	if len(s.m) < maxSpecs {
		s.m[name] = spec
	}
	s.mu.Unlock()
	return spec, nil
}

// forAgent picks the model for agent, whose parent runs on parent (nil at
// the root). A model chosen explicitly (the run's override, the configured
// default) must work, or the error names what is missing. A model the
// agent's file names never fails the run: when none of its names resolves
// to a provider that can be built here, the agent runs on the default and
// the reason is kept as the fallback.
func (c *modelCache) forAgent(agent registry.Agent, parent *resolved) (resolved, error) {
	if c.override != "" {
		return c.explicit(c.override)
	}
	names := AgentModels(agent)
	var reasons []string
	for _, name := range names {
		if isInherit(name) {
			if parent != nil {
				return *parent, nil
			}
			return c.explicit(c.cfg.DefaultModel)
		}
		spec, err := c.resolveName(name)
		if err == nil {
			var r resolved
			if r, err = c.resolve(spec); err == nil {
				return r, nil
			}
			err = written(name, spec, err)
		}
		reasons = append(reasons, err.Error())
	}
	d, err := c.explicit(c.cfg.DefaultModel)
	if err != nil {
		return resolved{}, err
	}
	if len(reasons) > 0 {
		d.fallback = fmt.Sprintf("%s; using the default model %q", strings.Join(reasons, "; "), d.spec)
	}
	return d, nil
}

// explicit resolves a model someone chose on purpose; its errors are final.
func (c *modelCache) explicit(name string) (resolved, error) {
	spec, err := c.resolveName(name)
	if err != nil {
		return resolved{}, err
	}
	r, err := c.resolve(spec)
	if err != nil {
		return resolved{}, written(name, spec, err)
	}
	return r, nil
}

func (c *modelCache) get(spec string) (model.LLM, error) {
	r, err := c.resolve(spec)
	return r.llm, err
}

func (c *modelCache) resolve(spec string) (resolved, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.llms[spec]; ok {
		return r, nil
	}
	llm, err := c.cfg.Models.Resolve(spec, nil)
	if err != nil {
		return resolved{}, err
	}
	r := newResolved(llm, spec)
	c.llms[spec] = r
	return r, nil
}

// AgentModels are the model names an agent's file writes, in the order to
// try them (VS Code's prioritized list); nil when it names none (the
// default applies). Agents built in code may set only Model.
func AgentModels(a registry.Agent) []string {
	var out []string
	for _, m := range a.Models {
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, m)
		}
	}
	if len(out) == 0 && strings.TrimSpace(a.Model) != "" {
		out = []string{strings.TrimSpace(a.Model)}
	}
	return out
}

// isInherit reports the names that mean "the parent's model": Claude Code's
// inherit, and its default (the model the session would use anyway).
func isInherit(name string) bool { return name == "inherit" || name == "default" }

// CheckModels resolves an agent file's model names as a run would, without
// running: spec is the first name that resolves to a model this machine can
// build, or "" with one reason per name when none does (the run then falls
// back to the default). A file that names no model, or inherits, checks fine.
func CheckModels(names []string, aliases map[string]string, providers model.Providers) (spec string, reasons []string) {
	for _, name := range names {
		if isInherit(name) {
			return name, nil
		}
		s, err := ResolveModel(name, aliases, providers)
		if err == nil {
			if _, err = providers.Resolve(s, nil); err == nil {
				return s, nil
			}
			err = written(name, s, err)
		}
		reasons = append(reasons, err.Error())
	}
	return "", reasons
}

// written puts the model as the file or flag wrote it, and the spec it
// resolved to, in front of a provider's error: `model "sonnet"
// (anthropic:claude-sonnet-4-6): anthropic: no API key ...`. Providers'
// unknown-provider error names the spec already.
func written(name, spec string, err error) error {
	switch {
	case errors.Is(err, model.ErrUnknownProvider) && name == spec:
		return err
	case errors.Is(err, model.ErrUnknownProvider):
		provider, _, _ := strings.Cut(spec, ":")
		return fmt.Errorf("model %q (%s): %w %q", name, spec, model.ErrUnknownProvider, provider)
	case name == spec:
		return fmt.Errorf("model %q: %w", name, err)
	}
	return fmt.Errorf("model %q (%s): %w", name, spec, err)
}

// ModelProblems are warnings, one per agent, about files whose models
// cannot be used on this machine: none of the names resolves to a provider
// that can be built here, so the agent will run on defaultModel. Each names
// the file, the line of model:, every name and what it lacks. validate
// prints them; the web's agent pages can show them beside the registry's
// own problems.
func ModelProblems(agents []registry.Agent, aliases map[string]string, defaultModel string, providers model.Providers) []registry.Problem {
	var out []registry.Problem
	for _, a := range agents {
		spec, reasons := CheckModels(AgentModels(a), aliases, providers)
		if spec != "" || len(reasons) == 0 {
			continue
		}
		out = append(out, registry.Problem{File: a.File, Agent: a.Name, Severity: registry.SeverityWarning,
			Line: a.ModelLine, Field: "model",
			Message: fmt.Sprintf("%s; runs on the default model %q instead", strings.Join(reasons, "; "), defaultModel)})
	}
	return out
}
