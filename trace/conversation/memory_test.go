package conversation_test

import (
	"testing"

	"github.com/agentry/agentry/trace/conversation"
	"github.com/agentry/agentry/trace/tracetest"
)

func TestMemoryPassesTheConversationSuite(t *testing.T) {
	tracetest.RunConversationTests(t, func(t *testing.T) conversation.Store { return conversation.NewMemory() })
}
