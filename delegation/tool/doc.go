// Package tool is the contract between the runtime and the tools it offers to
// models: a spec the model sees and a call that turns JSON arguments into a
// text result. Built-in tool sets live in subpackages named after what they
// touch (filesystem, webfetch). An error from Call is not fatal: the runtime
// hands its text back to the model as the tool's result.
//
// Protected names agentry's own state (DESIGN §12), which every tool that
// touches files must leave alone wherever it sits: the shell sandbox mounts
// it read-only or hides it, the filesystem tools refuse it.
package tool
