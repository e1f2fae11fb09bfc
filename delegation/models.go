package delegation

import (
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

// specCache remembers what model.Resolve answered for each name: the answer
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
	spec, err := model.Resolve(name, c.cfg.Aliases, c.cfg.Models)
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
func (c *modelCache) forAgent(agent *registry.Agent, parent *resolved) (resolved, error) {
	if c.override != "" {
		return c.explicit(c.override)
	}
	names := model.Names(agent)
	var reasons []string
	for _, name := range names {
		if model.IsInherit(name) {
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
			err = model.Named(name, spec, err)
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
		return resolved{}, model.Named(name, spec, err)
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
