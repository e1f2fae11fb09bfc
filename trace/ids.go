package trace

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sync/atomic"
)

// NewRunID returns a random run ID of 32 hex characters, the shape of an
// OpenTelemetry trace ID, so a run can be exported to OTLP unchanged.
func NewRunID() string { return randomHex(16) }

// NewSpanID returns a span ID of 16 hex characters, the shape of an
// OpenTelemetry span ID: a counter that starts at a random value for each
// process, so IDs are unique within a process and increase. Increasing IDs
// are what a store's (run, span ID) index wants: each new span lands at the
// end of its run's range instead of at a random page, which profiling of
// trace ingest showed as its largest SQLite cost (page splits and lookups).
func NewSpanID() string {
	var b [16]byte
	const digits = "0123456789abcdef"
	n := spanCounter.Add(1)
	for i := 15; i >= 0; i-- {
		b[i] = digits[n&0xf]
		n >>= 4
	}
	return string(b[:])
}

// spanCounter is the last span ID handed out. It starts at a random value
// with the top bits clear, so it never wraps and never reaches zero (an
// invalid OpenTelemetry span ID).
var spanCounter = func() *atomic.Uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	c := new(atomic.Uint64)
	c.Store(binary.BigEndian.Uint64(b[:])>>2 | 1)
	return c
}()

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
