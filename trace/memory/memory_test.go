package memory_test

import (
	"testing"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/conversation"
	"github.com/agentry/agentry/trace/memory"
	"github.com/agentry/agentry/trace/tracetest"
)

func TestConformance(t *testing.T) {
	tracetest.RunStoreTests(t, func(t *testing.T) trace.Store { return memory.New() })
}

func TestApprovalSuite(t *testing.T) {
	tracetest.RunApprovalTests(t, func(t *testing.T) approval.Store { return memory.New() })
}

func TestConversationSuite(t *testing.T) {
	tracetest.RunConversationTests(t, func(t *testing.T) conversation.Store { return memory.New() })
}

func TestVersionSuite(t *testing.T) {
	tracetest.RunVersionTests(t, func(t *testing.T) trace.Store { return memory.New() })
}
