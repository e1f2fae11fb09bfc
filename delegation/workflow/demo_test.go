package workflow_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/demo"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

func demoRuntime(t testing.TB, sink trace.Sink) *delegation.Runtime {
	t.Helper()
	rt, err := delegation.New(delegation.Config{
		Agents:       registry.New(nil),
		Models:       model.Providers{"demo": func(string) (model.LLM, error) { return &demo.Model{}, nil }},
		DefaultModel: "demo", Sink: sink, MaxConcurrent: 16,
	})
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// forEachShipped runs every shipped workflow with the demo model on its
// scripts/NAME.inputs.json, each in a subtest, and hands check the result.
func forEachShipped(t *testing.T, check func(t *testing.T, wf *workflow.Workflow, res *workflow.Result)) {
	files, _ := filepath.Glob("../../workflows/*.yaml")
	if len(files) == 0 {
		t.Fatal("no shipped workflows")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			wf, probs := workflow.LoadFile(f, nil)
			if wf == nil {
				t.Fatal(probs)
			}
			raw, err := os.ReadFile("../../workflows/scripts/" + name + ".inputs.json")
			if err != nil {
				t.Fatal(err)
			}
			var given map[string]any
			if err := json.Unmarshal(raw, &given); err != nil {
				t.Fatal(err)
			}
			inputs, err := workflow.ResolveInputs(wf, given)
			if err != nil {
				t.Fatal(err)
			}
			check(t, wf, workflow.Run(context.Background(), demoRuntime(t, nil), wf, "demo", workflow.Options{Inputs: inputs}))
		})
	}
}

func TestDemoWritesAValidWorkflow(t *testing.T) {
	for _, desc := range []string{"three steps: research, identify pains, draft an email",
		"summarise the news then translate it and post it", "x"} {
		text := demo.WriteWorkflow(desc)
		wf, probs := workflow.Parse("new.yaml", []byte(text), nil)
		if wf == nil || len(probs) > 0 {
			t.Fatalf("%q gave an invalid workflow: %v\n%s", desc, probs, text)
		}
		if desc[0] == 't' && len(wf.Steps) != 3 {
			t.Errorf("%q: %d steps", desc, len(wf.Steps))
		}
	}
}
