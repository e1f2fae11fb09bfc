package httpapi

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 3, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"no header asks for no wait", nil, 0},
		{"whole seconds are seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"fractional seconds are kept", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"an HTTP date is measured from now", map[string]string{"Retry-After": "Tue, 03 Nov 2026 12:00:30 GMT"}, 30 * time.Second},
		{"an HTTP date in the past means no wait", map[string]string{"Retry-After": "Tue, 03 Nov 2026 11:00:00 GMT"}, 0},
		{"retry-after-ms wins over Retry-After", map[string]string{"Retry-After": "7", "Retry-After-Ms": "1500"}, 1500 * time.Millisecond},
		{"a negative number is ignored", map[string]string{"Retry-After": "-3"}, 0},
		{"garbage is ignored", map[string]string{"Retry-After": "soon"}, 0},
		{"NaN is ignored", map[string]string{"Retry-After": "NaN"}, 0},
		{"an unreadable retry-after-ms falls back to Retry-After", map[string]string{"Retry-After": "2", "Retry-After-Ms": "x"}, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			if got := RetryAfter(h, now); got != tt.want {
				t.Errorf("RetryAfter(%v) = %v, want %v", tt.header, got, tt.want)
			}
		})
	}
}
