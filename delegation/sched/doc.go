// Package sched is delegation's scheduling: the lines calls wait in (FIFO
// for goroutines, Line for a state machine or workflow code), the DAG of
// one turn's delegate calls (Link, and Cycle, which an orchestrator's
// dispatches are checked with too), and the arithmetic of the caps a run
// counts (a conversation's sliding Window, a turn's tool calls).
//
// Everything here is deterministic given its inputs (FIFO excepted, which
// blocks goroutines), so the in-process runtime and the Temporal engine
// count with the same code: the in-process runtime behind a mutex, the
// Temporal engine in the root workflow that holds the run's ledger.
package sched
