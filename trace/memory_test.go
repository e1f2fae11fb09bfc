package trace_test

import (
	"testing"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/tracetest"
)

func TestMemoryConformance(t *testing.T) {
	tracetest.RunStoreTests(t, func(t *testing.T) trace.Store { return trace.NewMemory() })
}
