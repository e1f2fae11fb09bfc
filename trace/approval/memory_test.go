package approval_test

import (
	"testing"

	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/tracetest"
)

func TestMemoryPassesTheApprovalSuite(t *testing.T) {
	tracetest.RunApprovalTests(t, func(t *testing.T) approval.Store { return approval.NewMemory() })
}
