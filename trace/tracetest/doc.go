// Package tracetest is the conformance suite for trace.Store: one set of tests
// that every implementation (trace/sqlite, trace/postgres, trace/memory) must
// pass, so the CLI, the UI and the runtime can rely on the contract and not on
// a backend. RunReaperTests is the same for stores that are a trace.Reaper,
// RunApprovalTests for approval.Store and RunConversationTests for
// conversation.Store.
package tracetest
