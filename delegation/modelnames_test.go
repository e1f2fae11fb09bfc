package delegation

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/model"
)

func TestResolveModelTriesEachRuleInOrder(t *testing.T) {
	aliases := map[string]string{"fast": "openai:gpt-4.1-mini", "sonnet": "openai:local"}
	providers := model.Providers{"demo": nil, "openai": nil, "anthropic": nil}
	cases := []struct{ name, in, want string }{
		{"a config alias wins over everything", "fast", "openai:gpt-4.1-mini"},
		{"a config alias may redefine a Claude Code alias", "sonnet", "openai:local"},
		{"a Claude Code alias names Anthropic's model", "opus", "anthropic:claude-opus-4-8"},
		{"haiku", "haiku", "anthropic:claude-haiku-4-5"},
		{"opusplan runs on the executing model", "opusplan", "anthropic:claude-sonnet-4-6"},
		{"a 1M-context alias is its model", "sonnet[1m]", "anthropic:claude-sonnet-4-6"},
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
			got, err := ResolveModel(c.in, aliases, providers)
			if err != nil || got != c.want {
				t.Fatalf("ResolveModel(%q) = %q, %v; want %q", c.in, got, err, c.want)
			}
		})
	}
}

func TestResolveModelNamesWhatItCouldNotResolve(t *testing.T) {
	for _, in := range []string{"Gemini 2.5 Pro (copilot)", "mistral-large", "o2"} {
		_, err := ResolveModel(in, nil, model.Providers{"demo": nil})
		if !errors.Is(err, ErrUnknownModel) || !strings.Contains(err.Error(), `model "`+in+`"`) {
			t.Fatalf("ResolveModel(%q) error = %v", in, err)
		}
	}
}

func TestCheckModelsTakesTheFirstNameThisMachineCanUse(t *testing.T) {
	noKey := errors.New("anthropic: no API key: set ANTHROPIC_API_KEY")
	providers := model.Providers{
		"demo":      func(string) (model.LLM, error) { return nil, nil },
		"openai":    func(string) (model.LLM, error) { return nil, nil },
		"anthropic": func(string) (model.LLM, error) { return nil, noKey },
	}
	spec, reasons := CheckModels([]string{"sonnet", "Gemini 2.5 Pro", "GPT-4.1 (copilot)"}, nil, providers)
	if spec != "openai:gpt-4.1" || reasons != nil {
		t.Fatalf("spec %q, reasons %q", spec, reasons)
	}
	spec, reasons = CheckModels([]string{"sonnet", "Gemini 2.5 Pro"}, nil, providers)
	want := []string{
		`model "sonnet" (anthropic:claude-sonnet-4-6): anthropic: no API key: set ANTHROPIC_API_KEY`,
		`model "Gemini 2.5 Pro": ` + ErrUnknownModel.Error(),
	}
	if spec != "" || strings.Join(reasons, "\n") != strings.Join(want, "\n") {
		t.Fatalf("spec %q, reasons %q; want %q", spec, reasons, want)
	}
	if spec, reasons := CheckModels([]string{"inherit"}, nil, providers); spec != "inherit" || reasons != nil {
		t.Fatalf("inherit checked as %q %q", spec, reasons)
	}
}

func TestAnExplicitModelThatCannotBeUsedIsAnError(t *testing.T) {
	noKey := errors.New("anthropic: no API key: set ANTHROPIC_API_KEY")
	f := setup(t, map[string]string{"solo": "model: sonnet\n"}, "solo: [{say: hi}]\n", func(c *Config) {
		c.Models["anthropic"] = func(string) (model.LLM, error) { return nil, noKey }
	})
	_, err := f.rt.Start(t.Context(), Request{Agent: "solo", Task: "x", Model: "claude-opus-4-8"})
	if want := `start "solo": model "claude-opus-4-8" (anthropic:claude-opus-4-8): anthropic: no API key: set ANTHROPIC_API_KEY`; err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	f.rt.cfg.DefaultModel = "haiku"
	_, err = f.rt.Start(t.Context(), Request{Agent: "solo", Task: "x"})
	if err == nil || !strings.Contains(err.Error(), `model "haiku" (anthropic:claude-haiku-4-5): anthropic: no API key`) {
		t.Fatalf("a file model over an unusable default: err = %v, want the default's problem", err)
	}
}

func TestAFilesModelFallsBackToTheDefaultWithTheReasonOnItsSpan(t *testing.T) {
	noKey := errors.New("anthropic: no API key: set ANTHROPIC_API_KEY")
	f := setup(t, map[string]string{"solo": "model: sonnet\n"}, "solo: [{say: hi}]\n", func(c *Config) {
		c.Models["anthropic"] = func(string) (model.LLM, error) { return nil, noKey }
	})
	if res := f.run(t, "solo", "x"); res.Status != "ok" {
		t.Fatalf("result = %+v", res)
	}
	got := f.sink.one(t, "invoke_agent solo").Attributes[AttrModelFallback]
	if want := `model "sonnet" (anthropic:claude-sonnet-4-6): anthropic: no API key: set ANTHROPIC_API_KEY; using the default model "script"`; got != want {
		t.Fatalf("fallback = %q, want %q", got, want)
	}
}

func TestAModelListRunsOnTheFirstNameThatCanBeUsed(t *testing.T) {
	noKey := errors.New("anthropic: no API key: set ANTHROPIC_API_KEY")
	f := setup(t, map[string]string{"solo": "model: [opus, Gemini 2.5 Pro, fast]\n"}, "solo: [{say: hi}]\n", func(c *Config) {
		c.Models["anthropic"] = func(string) (model.LLM, error) { return nil, noKey }
		c.Aliases = map[string]string{"fast": "script:fast"}
	})
	if res := f.run(t, "solo", "x"); res.Status != "ok" {
		t.Fatalf("result = %+v", res)
	}
	attrs := f.sink.one(t, "invoke_agent solo").Attributes
	if attrs["model"] != "script:fast" || attrs[AttrModelFallback] != nil {
		t.Fatalf("model %v, fallback %v; want the list's third name and no fallback", attrs["model"], attrs[AttrModelFallback])
	}
}
