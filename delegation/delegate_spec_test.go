package delegation

import (
	"bytes"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The delegate tool's parameters are reflected from delegateArgs: they must
// compile as a JSON Schema that takes the calls the runtime reads and
// refuses the ones it would refuse.
func TestDelegateSpecIsASchemaOfTheCallsTheRuntimeReads(t *testing.T) {
	spec := delegateSpec([]target{{"analyst", "Reads  numbers\nwell"}, {"writer", "Writes"}})
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(spec.Parameters))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem:///delegate.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("mem:///delegate.json")
	if err != nil {
		t.Fatalf("%v\n%s", err, spec.Parameters)
	}
	for _, tc := range []struct {
		name, args string
		valid      bool
	}{
		{"agent and task", `{"agent":"analyst","task":"x"}`, true},
		{"every argument", `{"agent":"writer","task":"x","context":"summary","execution":"sequential","id":"w","depends_on":["a"]}`, true},
		{"an agent not offered", `{"agent":"ghost","task":"x"}`, false},
		{"no task", `{"agent":"analyst"}`, false},
		{"an unknown execution mode", `{"agent":"analyst","task":"x","execution":"eventually"}`, false},
		{"depends_on as text", `{"agent":"analyst","task":"x","depends_on":"a"}`, false},
	} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.args))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(v); (err == nil) != tc.valid {
			t.Errorf("%s: valid = %v, want %v (%v)", tc.name, err == nil, tc.valid, err)
		}
	}
	if p := string(spec.Parameters); !strings.Contains(p, `- analyst: Reads numbers well`) || strings.Contains(p, `"$schema"`) {
		t.Errorf("parameters = %s", p)
	}
}
