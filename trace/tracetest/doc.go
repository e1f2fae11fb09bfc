// Package tracetest is the conformance suite for trace.Store: one set of tests
// that every implementation (trace/sqlite, trace/postgres, trace/memory) must
// pass, so the CLI, the UI and the runtime can rely on the contract and not on
// a backend. RunApprovalTests is the same for approval.Store,
// RunConversationTests for conversation.Store, and RunReaperTests checks
// MarkInterrupted for the stores several processes write.
package tracetest
