package trace

import (
	"crypto/rand"
	"encoding/hex"
)

// NewRunID returns a random run ID of 32 hex characters, the shape of an
// OpenTelemetry trace ID, so a run can be exported to OTLP unchanged.
func NewRunID() string { return randomHex(16) }

// NewSpanID returns a random span ID of 16 hex characters, the shape of an
// OpenTelemetry span ID.
func NewSpanID() string { return randomHex(8) }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}
