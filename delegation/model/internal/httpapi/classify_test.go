package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/model"
)

func TestStatus(t *testing.T) {
	now := time.Date(2026, 11, 3, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		status    int
		header    map[string]string
		transient bool
		wait      time.Duration
	}{
		{"429 is retried after the requested wait", 429, map[string]string{"Retry-After": "3"}, true, 3 * time.Second},
		{"500 is retried", 500, nil, true, 0},
		{"529 overloaded is retried", 529, nil, true, 0},
		{"408 is retried", 408, nil, true, 0},
		{"400 is final", 400, nil, false, 0},
		{"401 is final", 401, nil, false, 0},
		{"403 is final", 403, nil, false, 0},
		{"404 is final", 404, nil, false, 0},
		{"x-should-retry false makes a 500 final", 500, map[string]string{"X-Should-Retry": "false"}, false, 0},
		{"x-should-retry true makes a 400 transient", 400, map[string]string{"X-Should-Retry": "true"}, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			apiErr := &APIError{Provider: "p", StatusCode: tt.status, Type: "t", Message: "m"}
			err := Status(apiErr, h, now)
			wait, transient := model.IsTransient(err)
			if transient != tt.transient || wait != tt.wait {
				t.Errorf("Status(%d) transient=%v wait=%v, want %v %v", tt.status, transient, wait, tt.transient, tt.wait)
			}
			var got *APIError
			if !errors.As(err, &got) || got != apiErr {
				t.Errorf("Status(%d) = %v, want it to wrap the API error", tt.status, err)
			}
		})
	}
}

func TestAPIErrorSaysWhoRefusedAndWhy(t *testing.T) {
	err := &APIError{Provider: "openai", StatusCode: 400, Type: "invalid_request_error", Message: "bad model"}
	want := "openai: 400 Bad Request: invalid_request_error: bad model"
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}

func TestTransport(t *testing.T) {
	live := context.Background()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	refused := &url.Error{Op: "Post", URL: "http://x", Err: &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}}
	tests := []struct {
		name      string
		ctx       context.Context
		err       error
		transient bool
		cancelled bool
	}{
		{"a refused connection is transient", live, refused, true, false},
		{"a body cut short is transient", live, fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true, false},
		{"an attempt timeout is transient", live, context.DeadlineExceeded, true, false},
		{"a malformed URL is final", live, &url.Error{Op: "Post", URL: "::", Err: errors.New("missing protocol scheme")}, false, false},
		{"the caller's cancellation is final and says so", cancelled, refused, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Transport(tt.ctx, "p", tt.err)
			if _, ok := model.IsTransient(err); ok != tt.transient {
				t.Errorf("Transport(%v) transient=%v, want %v", tt.err, ok, tt.transient)
			}
			if errors.Is(err, context.Canceled) != tt.cancelled {
				t.Errorf("Transport(%v) = %v; cancelled want %v", tt.err, err, tt.cancelled)
			}
		})
	}
}
