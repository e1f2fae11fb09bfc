package runs

import (
	"testing"
	"time"
)

func TestFormatDurationCountsMicrosecondsUnderAMillisecond(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                       "0 ms",
		-time.Second:            "0 ms",
		300 * time.Nanosecond:   "1 µs",
		593 * time.Microsecond:  "593 µs",
		time.Millisecond:        "1 ms",
		450 * time.Millisecond:  "450 ms",
		2350 * time.Millisecond: "2.35 s",
		65 * time.Second:        "1m 05s",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
