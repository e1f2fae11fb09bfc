package delegation

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/loop"
)

// The delegate tool's parameters are a JSON Schema of the calls the runtime
// reads (loop.DelegateArgs): every argument but background is a property, the agent an enum of
// the targets with their descriptions, agent and task required.
//
// (Compiling it with a JSON Schema library would be a stronger check, but
// such a library in this package's test binary changes what its benchmarks
// measure: its package state alone moved BenchmarkSequential200.)
func TestDelegateSpecIsASchemaOfTheCallsTheRuntimeReads(t *testing.T) {
	spec := delegateSpec([]target{{"analyst", "Reads  numbers\nwell"}, {"writer", "Writes"}})
	var schema struct {
		Type       string `json:"type"`
		Properties map[string]struct {
			Type        string                 `json:"type"`
			Enum        []string               `json:"enum"`
			Description string                 `json:"description"`
			Items       *struct{ Type string } `json:"items"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(spec.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	var args []string
	for f := range reflect.TypeFor[loop.DelegateArgs]().Fields() {
		if f.Name == "Background" { // told of by the tools that collect background agents
			continue
		}
		args = append(args, f.Tag.Get("json"))
		if p, ok := schema.Properties[f.Tag.Get("json")]; !ok || p.Type == "" || p.Description == "" && f.Name != "Agent" {
			t.Errorf("argument %s: property %+v (%v)", f.Name, p, ok)
		}
	}
	if len(schema.Properties) != len(args) || schema.Type != "object" || !slices.Equal(schema.Required, []string{"agent", "task"}) {
		t.Errorf("schema %+v, want the properties %q with agent and task required", schema, args)
	}
	agent, exec, deps := schema.Properties["agent"], schema.Properties["execution"], schema.Properties["depends_on"]
	if !slices.Equal(agent.Enum, []string{"analyst", "writer"}) || !strings.Contains(agent.Description, "\n- analyst: Reads numbers well\n- writer: Writes") {
		t.Errorf("agent = %+v", agent)
	}
	if !slices.Equal(exec.Enum, []string{"sequential", "parallel", "parallel_streaming"}) || deps.Type != "array" || deps.Items == nil || deps.Items.Type != "string" {
		t.Errorf("execution %+v, depends_on %+v", exec, deps)
	}
}
