// Package rundiff is the web UI's run diff (docs/replay.md): two runs
// compared span by span, a replay beside its original or the two runs of
// one eval case at two versions. compare.Runs (trace/compare) aligns their
// delegations and tool calls; the page lists what was added, dropped or
// changed, how status, tokens and cost moved, and the two final answers
// side by side.
package rundiff
