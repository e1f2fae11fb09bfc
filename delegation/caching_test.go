package delegation

import (
	"context"
	"testing"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace/semconv"
)

// cachingModel answers at once, reporting part of its input as cached.
type cachingModel struct{}

func (cachingModel) Name() string { return "caching" }
func (cachingModel) Generate(context.Context, *model.Request) (*model.Response, error) {
	return &model.Response{Text: "ok", InputTokens: 1000, OutputTokens: 10, CachedInputTokens: 800}, nil
}

func TestChatSpansRecordCachedInputTokens(t *testing.T) {
	f := setup(t, map[string]string{"a": ""}, "a: [{say: x}]\n", func(c *Config) {
		c.Models = model.Providers{"script": func(string) (model.LLM, error) { return cachingModel{}, nil }}
	})
	f.run(t, "a", "x")
	sp := f.sink.one(t, "chat caching")
	if sp.Attributes[semconv.AttrCachedInputTokens] != int64(800) || sp.InputTokens != 1000 {
		t.Fatalf("chat span = %d input, attributes %v; want 800 cached of 1000", sp.InputTokens, sp.Attributes)
	}
	if sp := f.sink.one(t, "invoke_agent a"); sp.Attributes[semconv.AttrCachedInputTokens] != nil {
		t.Errorf("the invoke span has cached tokens too: %v", sp.Attributes)
	}
}
