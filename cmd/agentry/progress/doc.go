// Package progress prints a run as it goes, one line per event a person
// watching a terminal wants: branches starting and ending, delegations
// refused or waiting for a slot, failed tool calls, answered approvals,
// an agent running on the default model. Printer is a trace.Sink, so an
// in-process run feeds it directly; a run on Temporal feeds it from the
// trace store the workers write (Tail).
package progress
