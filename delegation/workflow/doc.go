// Package workflow loads and runs multi-agent workflows written in YAML, in
// the format of the Sub-Agent Orchestrator document (seed 000): inputs,
// inline agents, steps of five types (sequential, parallel, conditional,
// loop, map) and per-step output handling.
//
// Loading is one pure function, Parse(file, data, lookup), that returns a
// Workflow or Problems with file and line, so a folder watcher can keep a
// broken file's last good version and report it. The file's keys are
// structs (load.go, steps.go) decoded by registry/yamlstruct, as agent
// files are: a wrong type or a key given twice is an error at its line, an
// unknown key a warning naming the keys that are read there. Scalars are
// read by their text (version: 1.0 is "1.0", wait: 2 is "2"). Everything that can be
// checked before running is checked there: templates and conditions are
// compiled with expr-lang/expr against the names the workflow defines
// (inputs, earlier steps, store_as names), a reference to an undefined
// name or to a later step is a problem at its line, JSON Schemas are
// compiled with santhosh-tekuri/jsonschema, and the step graph is checked
// for cycles.
//
// Decisions:
//   - A step depends on the steps its templates reference (its input, its
//     agents' prompts, a map's `over`, a condition) and, for the literal input
//     "all prior context", on every earlier step. Independent steps run at
//     once; the runtime's run-wide cap bounds the agents working.
//   - A conditional's `true`/`false` name a step or an agent. A named step
//     is gated: it runs only when chosen, and is skipped (not a failure, the
//     workflow stays COMPLETE) when not.
//   - Inside a loop step, `steps.SELF.output` in feedback_path is the
//     validator's latest output; the validator is given the producer's
//     latest output after its own prompt.
//   - Transient model errors are retried inside an invocation by the runtime
//     (as for every agent); retry.max_attempts counts invocation runs for
//     what survives that: an agent error, a timeout, a failed validation.
//   - Rules the deterministic patterns do not match are judged by the
//     run's model as the agent rule-judge (its own invocation under the
//     step), and listed so; when an earlier check already failed, the model
//     is spared. The rules are also given to the agent with its task.
//   - The engine talks to the runtime through Host (SessionHost wraps a
//     delegation.Session), so its overhead can be measured alone.
//
// docs/workflows.md is the user-facing account.
package workflow
