// Package replay answers a run's tool calls from the recording of an
// earlier run, so a run can be played again with edited agents while what
// the tools returned is held fixed (agentry run --replay, docs/replay.md).
//
// It is a wrapper around the tool set, at the edge: Recording.Tools wraps
// each tool the runtime is configured with, and the agent loop, the
// delegate tool and the models are untouched. Delegations and model calls
// therefore run anew, with today's agent files; only calls of configured
// tools (filesystem, shell, web, MCP) are intercepted.
//
// A call matches a recorded one when its tool and its arguments are the
// same, compared as JSON values (key order and spacing do not matter).
// Identical calls are answered with the recorded answers in the order they
// were recorded, the last one again once they run out, since a replay may
// ask more often than the original did. A recorded answer is the tool's
// result, or its error for a call that failed inside the tool; calls the
// original never ran (denied, cancelled, timed out, or refused before the
// tool) are not answers. A call without a recorded answer is refused with
// a result that says so, unless the replay runs live tools, when it runs
// for real. Each replayed call's span says which it was (AttrReplay).
package replay
