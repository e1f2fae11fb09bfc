package trace_test

import (
	"testing"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/tracetest"
)

func TestMemoryConformance(t *testing.T) {
	tracetest.RunStoreTests(t, func(t *testing.T) trace.Store { return trace.NewMemory() })
}

func TestMemoryPassesTheApprovalSuite(t *testing.T) {
	tracetest.RunApprovalTests(t, func(t *testing.T) trace.ApprovalStore { return trace.NewMemory() })
}

func TestMemoryPassesTheVersionSuite(t *testing.T) {
	tracetest.RunVersionTests(t, func(t *testing.T) trace.Store { return trace.NewMemory() })
}
