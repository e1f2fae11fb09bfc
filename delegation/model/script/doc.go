// Package script is a model that plays exact turns from a YAML file, so tests
// and demos of the runtime are deterministic and need no network (DESIGN §8).
//
// The file maps an agent name to the turns it plays. Every invocation of an
// agent starts again at its first turn (invocations are told apart by the
// request's Invocation); each model call, retries
// included, plays the next turn.
//
// A turn needs say, calls or error. say: "" is a turn too: the empty answer
// a test scripts to see the runtime treat it as a failure (an absent say is
// not the same as an empty one, so {} stays malformed).
package script
