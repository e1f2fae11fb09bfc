package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentry/agentry/delegation/model"
)

// ErrInvalidArgs is returned by a tool whose arguments do not parse or miss a
// required field; the runtime reports it back to the model.
var ErrInvalidArgs = errors.New("invalid arguments")

// ErrUnavailable marks a failure of what a tool depends on (a server down
// or answering 5xx, a lost connection), as opposed to the call's own (bad
// arguments, a missing file): circuit breakers count only the former. Wrap
// an error with MarkUnavailable to mark it.
var ErrUnavailable = errors.New("dependency unavailable")

// MarkUnavailable marks err as a failure of the tool's dependency
// (ErrUnavailable) without changing its message; nil stays nil.
func MarkUnavailable(err error) error {
	if err == nil {
		return nil
	}
	return unavailable{err}
}

type unavailable struct{ error }

func (u unavailable) Unwrap() []error { return []error{u.error, ErrUnavailable} }

// Tool is one callable tool. Implementations are safe for concurrent use.
type Tool interface {
	// Spec is what the model is offered: name ("group.tool"), description and
	// the JSON Schema of the arguments.
	Spec() model.Tool
	// Call runs the tool with the model's raw JSON arguments.
	Call(ctx context.Context, args json.RawMessage) (string, error)
}

// Func is a Tool made of a spec and a function.
type Func struct {
	Def model.Tool
	Fn  func(ctx context.Context, args json.RawMessage) (string, error)
}

// Spec returns f.Def.
func (f Func) Spec() model.Tool { return f.Def }

// Call runs f.Fn.
func (f Func) Call(ctx context.Context, args json.RawMessage) (string, error) { return f.Fn(ctx, args) }

// Typed is a Func whose arguments are decoded into an A (strictly, as
// Decode does) before fn sees them.
func Typed[A any](def model.Tool, fn func(ctx context.Context, args A) (string, error)) Func {
	return Func{Def: def, Fn: func(ctx context.Context, raw json.RawMessage) (string, error) {
		var a A
		if err := Decode(raw, &a); err != nil {
			return "", err
		}
		return fn(ctx, a)
	}}
}

// Decode unmarshals args into v strictly (unknown fields are an error), so a
// model's typo is reported to it instead of silently ignored.
func Decode(args json.RawMessage, v any) error {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	dec := json.NewDecoder(strings.NewReader(string(args)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidArgs, err)
	}
	return nil
}

// Names returns the sorted names of tools.
func Names(tools []Tool) []string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Spec().Name
	}
	slices.Sort(names)
	return names
}

// Schema builds a JSON Schema object with the given properties (each a JSON
// Schema) and required names.
func Schema(props map[string]string, required ...string) json.RawMessage {
	keys := slices.Sorted(maps.Keys(props))
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kj, _ := json.Marshal(k)
		b.Write(kj)
		b.WriteByte(':')
		b.WriteString(props[k])
	}
	b.WriteString(`},"required":`)
	if required == nil {
		required = []string{}
	}
	rj, _ := json.Marshal(required)
	b.Write(rj)
	b.WriteString(`,"additionalProperties":false}`)
	return json.RawMessage(b.String())
}
