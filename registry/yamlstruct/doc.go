// Package yamlstruct decodes a YAML mapping into a Go struct one key at a
// time, so a file with several mistakes gets a problem for each, at its
// line and in words a person reads ("retry.backoff must be a string, got a
// list"). yaml.v3's own Node.Decode into a struct takes a number where a
// string is wanted, ignores or rejects unknown keys wholesale, and says
// "cannot unmarshal !!seq into string" without the key.
//
// It is the one decoder behind agent frontmatter (registry) and workflow
// files (delegation/workflow). Each declares the keys it reads as a struct
// with yaml tags; Decode walks the mapping and, per key:
//
//   - a key no field takes is a Problem marked Unknown: the caller decides
//     what it means (registry keeps it, or suggests the key it resembles;
//     a workflow warns). Decode never changes the node tree, so a Document
//     keeps every unknown key for lossless edits.
//   - a key given twice is a problem (YAML forbids it; yaml.v3 does not
//     check when it builds a Node).
//   - a null value leaves the field as if the key were absent.
//   - a value is checked against the field's Go type (string, bool, int,
//     float, time.Duration, struct, slice) and decoded with Node.Decode;
//     `any` takes whatever yaml.v3 decodes, a *yaml.Node field the node
//     itself (for values of several shapes, which the caller reads), a
//     yaml.Unmarshaler reads its node itself (an eval suite's "one string
//     or a list"). A field of another type is a programming error: Decode
//     panics.
//
// Lines: At[T] keeps the line of its key beside the value, and Entry[T]
// reads a mapping whose keys are names (a workflow's agents) as a list in
// file order with each key's line, so problems found after decoding (a
// value out of range, a name that resolves to nothing) point at the file.
//
// Scalars are strict by default: a string field wants a YAML string, so
// `name: 42` is a problem, as a number where agentry wants a name is
// usually a mistake. Options.Lenient reads a scalar by its text instead
// (`version: 1.0` is "1.0", `max_iterations: "3"` is 3), as workflow
// files always have been.
package yamlstruct
