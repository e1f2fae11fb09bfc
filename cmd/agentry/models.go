package main

import (
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
// with their keys and base URLs from the usual environment variables. A
// missing key is an error when a run picks that provider, not at start-up.
func modelProviders(cfg Config) model.Providers {
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
			return script.Load(path)
		},
		"openai":    openai.Factory(openai.ConfigFromEnv(os.Getenv)),
		"anthropic": anthropic.Factory(anthropic.ConfigFromEnv(os.Getenv)),
	}
}
