package model

import (
	"errors"
	"strings"
	"testing"
)

func TestResolveModelTriesEachRuleInOrder(t *testing.T) {
	aliases := map[string]string{"fast": "openai:gpt-4.1-mini", "sonnet": "openai:local"}
	providers := Providers{"demo": nil, "openai": nil, "anthropic": nil}
	cases := []struct{ name, in, want string }{
		{"a config alias wins over everything", "fast", "openai:gpt-4.1-mini"},
		{"a config alias may redefine a Claude Code alias", "sonnet", "openai:local"},
		{"a Claude Code alias names Anthropic's model", "opus", "anthropic:claude-opus-4-8"},
		{"haiku", "haiku", "anthropic:claude-haiku-4-5"},
		{"opusplan runs on the executing model", "opusplan", "anthropic:claude-sonnet-4-6"},
		{"a 1M-context alias is its model", "sonnet[1m]", "anthropic:claude-sonnet-4-6"},
		{"fable names Fable 5.2 on Anthropic's API", "fable", "anthropic:claude-fable-5-2"},
		{"a Fable id is its own API id", "claude-fable-5", "anthropic:claude-fable-5"},
		{"a Fable display name", "Claude Fable 5.2", "anthropic:claude-fable-5-2"},
		{"a full Claude id is anthropic", "claude-sonnet-4-5-20250929", "anthropic:claude-sonnet-4-5-20250929"},
		{"a Claude id spelled with dots is respelled", "claude-sonnet-4.6", "anthropic:claude-sonnet-4-6"},
		{"a major version alone is the API's -0 alias", "claude-sonnet-4", "anthropic:claude-sonnet-4-0"},
		{"an old family id is the API's -latest alias", "claude-3.5-sonnet", "anthropic:claude-3-5-sonnet-latest"},
		{"a GPT id is openai", "gpt-4o", "openai:gpt-4o"},
		{"an o-series id is openai", "o3-mini", "openai:o3-mini"},
		{"a bare o-series id is openai", "o1", "openai:o1"},
		{"a VS Code display name with its suffix", "Claude Sonnet 4.5 (copilot)", "anthropic:claude-sonnet-4-5"},
		{"a VS Code display name without it", "Claude Opus 4.7", "anthropic:claude-opus-4-7"},
		{"a VS Code GPT name", "GPT-5 (copilot)", "openai:gpt-5"},
		{"a VS Code GPT name from the table", "GPT-5 mini", "openai:gpt-5-mini"},
		{"a VS Code codex name", "GPT-5.3-Codex", "openai:gpt-5.3-codex"},
		{"an old Claude display name from the table", "Claude Sonnet 3.7", "anthropic:claude-3-7-sonnet-latest"},
		{"provider:model as written", "openai:llama3.2:3b", "openai:llama3.2:3b"},
		{"a bare provider", "demo", "demo"},
		{"an unknown provider is left to Providers.Resolve", "nowhere:x", "nowhere:x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Resolve(c.in, aliases, providers)
			if err != nil || got != c.want {
				t.Fatalf("Resolve(%q) = %q, %v; want %q", c.in, got, err, c.want)
			}
		})
	}
}

func TestResolveModelNamesWhatItCouldNotResolve(t *testing.T) {
	for _, in := range []string{"Gemini 2.5 Pro (copilot)", "mistral-large", "o2"} {
		_, err := Resolve(in, nil, Providers{"demo": nil})
		if !errors.Is(err, ErrUnknownName) || !strings.Contains(err.Error(), `model "`+in+`"`) {
			t.Fatalf("Resolve(%q) error = %v", in, err)
		}
	}
}

func TestCheckModelsTakesTheFirstNameThisMachineCanUse(t *testing.T) {
	noKey := errors.New("anthropic: no API key: set ANTHROPIC_API_KEY")
	providers := Providers{
		"demo":      func(string) (LLM, error) { return nil, nil },
		"openai":    func(string) (LLM, error) { return nil, nil },
		"anthropic": func(string) (LLM, error) { return nil, noKey },
	}
	spec, reasons := Check([]string{"sonnet", "Gemini 2.5 Pro", "GPT-4.1 (copilot)"}, nil, providers)
	if spec != "openai:gpt-4.1" || reasons != nil {
		t.Fatalf("spec %q, reasons %q", spec, reasons)
	}
	spec, reasons = Check([]string{"sonnet", "Gemini 2.5 Pro"}, nil, providers)
	want := []string{
		`model "sonnet" (anthropic:claude-sonnet-4-6): anthropic: no API key: set ANTHROPIC_API_KEY`,
		`model "Gemini 2.5 Pro": ` + ErrUnknownName.Error(),
	}
	if spec != "" || strings.Join(reasons, "\n") != strings.Join(want, "\n") {
		t.Fatalf("spec %q, reasons %q; want %q", spec, reasons, want)
	}
	if spec, reasons := Check([]string{"inherit"}, nil, providers); spec != "inherit" || reasons != nil {
		t.Fatalf("inherit checked as %q %q", spec, reasons)
	}
}
