package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/anthropic"
	"github.com/agentry/agentry/delegation/model/demo"
	"github.com/agentry/agentry/delegation/model/openai"
	"github.com/agentry/agentry/delegation/model/script"
)

// modelProviders maps the provider part of a model spec to its factory: the
// offline demo and script:FILE, and the OpenAI-compatible and Anthropic APIs
// with their keys and base URLs from models.openai / models.anthropic, else
// the usual environment variables. A missing key is an error when a run
// picks that provider, not at start-up.
func modelProviders(cfg Config) model.Providers {
	oa, an := providerConfigs(cfg.Models, os.Getenv)
	return model.Providers{
		"demo": func(name string) (model.LLM, error) {
			if name != "" {
				return nil, fmt.Errorf("model demo takes no model name, got %q", name)
			}
			return demo.New(), nil
		},
		"script": func(path string) (model.LLM, error) {
			if path == "" {
				return nil, fmt.Errorf("model script needs a file: script:FILE")
			}
			if cfg.Serve.confined { // a name from the browser: only inside serve.script_dir
				return script.LoadIn(cfg.Serve.ScriptDir, path)
			}
			return script.Load(path)
		},
		"openai":    withKeyHint(openai.Factory(oa), openai.ErrNoAPIKey, "models.openai.api_key"),
		"anthropic": withKeyHint(anthropic.Factory(an), anthropic.ErrNoAPIKey, "models.anthropic.api_key"),
	}
}

// providerConfigs is where the openai: and anthropic: providers are and the
// keys they take: each field from the configuration when it sets one, else
// from the provider's environment variable read through getenv.
func providerConfigs(m ModelsConfig, getenv func(string) string) (openai.Config, anthropic.Config) {
	oa := openai.ConfigFromEnv(getenv)
	oa.BaseURL, oa.APIKey = orElse(m.OpenAI.BaseURL, oa.BaseURL), orElse(m.OpenAI.APIKey, oa.APIKey)
	an := anthropic.ConfigFromEnv(getenv)
	an.BaseURL, an.APIKey = orElse(m.Anthropic.BaseURL, an.BaseURL), orElse(m.Anthropic.APIKey, an.APIKey)
	return oa, an
}

// orElse returns configured unless it is empty, then fallback.
func orElse(configured, fallback string) string {
	if configured != "" {
		return configured
	}
	return fallback
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
