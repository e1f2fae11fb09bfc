package tool

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestDecodeRejectsUnknownFieldsAndBrokenJSON(t *testing.T) {
	var v struct{ Path string }
	cases := []struct {
		name string
		args string
		ok   bool
	}{
		{"a known field decodes", `{"path":"a"}`, true},
		{"empty arguments mean an empty object", ``, true},
		{"an unknown field is an error", `{"paht":"a"}`, false},
		{"broken JSON is an error", `{"path":`, false},
		{"a wrong type is an error", `{"path":1}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Decode(json.RawMessage(c.args), &v)
			if c.ok != (err == nil) || (err != nil && !errors.Is(err, ErrInvalidArgs)) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestSchemaIsValidSortedJSON(t *testing.T) {
	s := Schema(map[string]string{"b": `{"type":"string"}`, "a": `{"type":"integer"}`}, "b")
	want := `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["b"],"additionalProperties":false}`
	if string(s) != want || !json.Valid(s) {
		t.Fatalf("schema = %s", s)
	}
}
