package delegation

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/trace"
)

func TestABadModelSpecIsNamedOnceInTheError(t *testing.T) {
	agents := map[string]string{"coord": "subagents:\n  allow: [a, b]\n", "a": "model: nowhere:x\n", "b": "", "gpt": "model: foo:bar\n"}
	f := setup(t, agents, coordScript, func(c *Config) {
		c.Models["script"] = func(path string) (model.LLM, error) {
			if path == "" {
				return script.Parse([]byte(coordScript))
			}
			return script.Load(path)
		}
	})

	_, err := f.rt.Start(context.Background(), Request{Agent: "gpt", Task: "x", Model: "foo:bar"})
	if want := `start "gpt": model "foo:bar": unknown model provider "foo"`; err == nil || err.Error() != want {
		t.Fatalf("root error = %v, want %q", err, want)
	}

	res := f.run(t, "coord", "x")
	if res.Status != trace.StatusOK {
		t.Fatalf("result = %+v", res)
	}
	// A file's model never fails the run: the child runs on the default,
	// and its span says why, naming the spec once.
	if got, want := f.sink.one(t, "invoke_agent a").Attributes[AttrModelFallback], `model "nowhere:x": unknown model provider "nowhere"; using the default model "script"`; got != want {
		t.Fatalf("child fallback = %q, want %q", got, want)
	}

	// A provider's own failure still says which spec it was building, once.
	missing := filepath.Join(t.TempDir(), "none.yaml")
	_, err = f.rt.Start(context.Background(), Request{Agent: "b", Task: "x", Model: "script:" + missing})
	if err == nil || !strings.HasPrefix(err.Error(), `start "b": model "script:`+missing+`": script `) ||
		strings.Count(err.Error(), "model ") != 1 {
		t.Fatalf("factory error = %v, want the spec named once before the provider's reason", err)
	}
}
