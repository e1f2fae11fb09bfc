package main

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/anthropic"
	"github.com/agentry/agentry/delegation/model/demo"
	"github.com/agentry/agentry/delegation/model/openai"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/registry"
)

// modelProviders maps the provider part of a model spec to its factory: the
// offline demo and script:FILE, and the OpenAI-compatible and Anthropic APIs
// with their keys and base URLs from models.openai / models.anthropic, else
// the usual environment variables read through getenv. A missing key is an
// error when a run picks that provider, not at start-up.
func modelProviders(cfg config.Config, getenv func(string) string) model.Providers {
	oa, an := providerConfigs(cfg.Models, getenv)
	return model.Providers{
		"demo": func(name string) (model.LLM, error) {
			if name != "" {
				return nil, fmt.Errorf("model demo takes no model name, got %q", name)
			}
			return demo.New(), nil
		},
		"script":    scriptModels(func(path string) (model.LLM, error) { return script.Load(path) }),
		"openai":    withKeyHint(openai.Factory(oa), openai.ErrNoAPIKey, "models.openai.api_key"),
		"anthropic": withKeyHint(anthropic.Factory(an), anthropic.ErrNoAPIKey, "models.anthropic.api_key"),
	}
}

// serveModels are modelProviders for serve, where a script: name may come
// from the browser: it is read from serve.script_dir only (no script
// models at all when that is empty).
func serveModels(cfg config.Config, getenv func(string) string) model.Providers {
	p := modelProviders(cfg, getenv)
	p["script"] = scriptModels(func(name string) (model.LLM, error) { return script.LoadIn(cfg.Serve.ScriptDir, name) })
	return p
}

// scriptModels is the script: provider reading files with load.
func scriptModels(load model.Factory) model.Factory {
	return func(name string) (model.LLM, error) {
		if name == "" {
			return nil, errors.New("model script needs a file: script:FILE")
		}
		return load(name)
	}
}

// providerConfigs is where the openai: and anthropic: providers are and the
// keys they take: each field from the configuration when it sets one, else
// from the provider's environment variable read through getenv.
func providerConfigs(m config.ModelsConfig, getenv func(string) string) (openai.Config, anthropic.Config) {
	oa := openai.ConfigFromEnv(getenv)
	oa.BaseURL, oa.APIKey = cmp.Or(m.OpenAI.BaseURL, oa.BaseURL), cmp.Or(m.OpenAI.APIKey, oa.APIKey)
	an := anthropic.ConfigFromEnv(getenv)
	an.BaseURL, an.APIKey = cmp.Or(m.Anthropic.BaseURL, an.BaseURL), cmp.Or(m.Anthropic.APIKey, an.APIKey)
	return oa, an
}

// withKeyHint adds the configuration key to a missing-key error, which
// names only the provider's environment variable.
func withKeyHint(f model.Factory, errNoKey error, key string) model.Factory {
	return func(name string) (model.LLM, error) {
		llm, err := f(name)
		if errors.Is(err, errNoKey) {
			return nil, fmt.Errorf("%w; or set %s in agentry.yaml", err, key)
		}
		return llm, err
	}
}

// modelProblems are validate's findings about models: a file's model that
// resolves to nothing or to a provider this machine cannot use is a warning
// (model.Problems: the run falls back to the default), and a
// default that cannot be used is an error, since every such fallback and
// every agent without a model needs it.
func (s *session) modelProblems(cfg config.Config, snap *registry.Snapshot) []registry.Problem {
	providers := modelProviders(cfg, s.getenv)
	var out []registry.Problem
	if _, reasons := model.Check([]string{cfg.Models.Default}, cfg.Models.Aliases, providers); len(reasons) > 0 {
		out = append(out, registry.Problem{File: cfg.File, Severity: registry.SeverityError, Field: "models.default",
			Message: "models.default: " + reasons[0]})
	}
	return append(out, model.Problems(snap.Agents(), cfg.Models.Aliases, cfg.Models.Default, providers)...)
}

// agentModelProblems warns, for one agent, that its file's model cannot be
// used here and it runs on the default: what validate prints, for the web UI.
func agentModelProblems(cfg config.Config, providers model.Providers) func(registry.Agent) []registry.Problem {
	return func(a registry.Agent) []registry.Problem {
		return model.Problems([]registry.Agent{a}, cfg.Models.Aliases, cfg.Models.Default, providers)
	}
}
