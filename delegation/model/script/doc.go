// Package script is a model that plays exact turns from a YAML file, so tests
// and demos of the runtime are deterministic and need no network (DESIGN §8).
//
// The file maps an agent name to the turns it plays. Every invocation of an
// agent starts again at its first turn (invocations are told apart by the
// request's Invocation); each model call, retries
// included, plays the next turn.
package script
