package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/agentry/agentry/delegation/model"
)

// APIError is a final error a provider's API answered with: the request was
// read and refused (bad request, bad key, unknown model), so sending it again
// will not help.
type APIError struct {
	Provider   string // "openai" or "anthropic"
	StatusCode int    // the HTTP status
	Type       string // the provider's error type or code, e.g. "invalid_request_error"; may be empty
	Message    string // the provider's explanation; may be empty
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("%s: %d %s", e.Provider, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Type != "" {
		s += ": " + e.Type
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Status turns an error response into the runtime's kind of error: a
// *model.TransientError wrapping an *APIError when the status is worth
// retrying, the *APIError itself otherwise. The server's "x-should-retry"
// header, which both providers send, overrides the status rule.
func Status(e *APIError, h http.Header, now time.Time) error {
	if !retryable(e.StatusCode, h) {
		return e
	}
	return &model.TransientError{RetryAfter: RetryAfter(h, now), Err: e}
}

// retryable says whether a status is worth another attempt: 408 and 409
// (the providers' lock and request timeouts), 429 (rate limit) and every 5xx
// (including Anthropic's 529 overloaded).
func retryable(status int, h http.Header) bool {
	switch h.Get("X-Should-Retry") {
	case "true":
		return true
	case "false":
		return false
	}
	return status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500
}

// Transport turns a failure that has no HTTP status (the call never got a
// complete answer) into the runtime's kind of error. The caller's own
// cancellation or deadline is final, so the runtime stops instead of
// retrying; a timeout of the attempt, a refused or dropped connection and a
// body cut short are transient; anything else (a malformed URL, an unreadable
// response) is final.
func Transport(ctx context.Context, provider string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: %w", provider, ctxErr)
	}
	if Dropped(err) {
		return &model.TransientError{Err: fmt.Errorf("%s: %w", provider, err)}
	}
	return fmt.Errorf("%s: %w", provider, err)
}

// Dropped reports whether err says the exchange broke off (timeout, refused
// or reset connection, body cut short) rather than that an answer was wrong.
func Dropped(err error) bool {
	var netErr net.Error
	var opErr *net.OpError
	switch {
	case errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.As(err, &opErr):
		return true
	case errors.As(err, &netErr):
		return netErr.Timeout()
	}
	return false
}
