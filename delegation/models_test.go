package delegation

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/model"
)

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
