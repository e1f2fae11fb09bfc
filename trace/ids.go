package trace

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
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

// MaxIDLength is the longest run or span ID CheckID accepts.
const MaxIDLength = 128

// CheckID reports, wrapping ErrInvalid, why id cannot name a run or span:
// it must be 1 to MaxIDLength ASCII letters, digits, '.', '_' or '-',
// starting with a letter or digit. IDs go into URLs (/runs/{id}), file
// names and HTML attributes, so an imported document may not bring slashes,
// spaces, quotes or control characters. Generated IDs (hex) always pass.
func CheckID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("%w: no id", ErrInvalid)
	case len(id) > MaxIDLength:
		return fmt.Errorf("%w: id of %d characters is longer than %d", ErrInvalid, len(id), MaxIDLength)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return fmt.Errorf("%w: id %q has %q at position %d; ids are letters, digits, '.', '_' and '-', starting with a letter or digit",
				ErrInvalid, id, c, i+1)
		}
	}
	return nil
}
