// Package writer is the background goroutine that writes a trace sink's
// batches: trace.Recorder's to its store and otlp.Exporter's to a
// collector. Both record on the agents' goroutines and write on one of
// their own, woken by a ticker, by a full batch, by Flush and once more by
// Close; before this package each hand-wrote the same loop, with the same
// handshakes. What differs between them (what a write is, what a tick does
// first, what the last write at Close does, what Flush returns once the
// loop has exited, and their error words) stays with each sink.
//
// The loop owns no data: a Loop runs its Config's functions one at a time
// on its goroutine, and the sink guards what they share with the callers
// with its own lock.
package writer
