package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryAfter returns the wait a response asks for before the next attempt, or
// 0 when it asks for none or says something unreadable. It reads
// "retry-after-ms" (milliseconds, sent by OpenAI and Anthropic) first because
// it is the more precise, then "Retry-After" as seconds or as an HTTP date
// measured from now. A date in the past means no wait.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if ms, ok := number(h.Get("Retry-After-Ms")); ok {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, ok := number(v); ok {
		return time.Duration(s * float64(time.Second))
	}
	if at, err := http.ParseTime(v); err == nil && at.After(now) {
		return at.Sub(now)
	}
	return 0
}

// number parses a non-negative, finite decimal; providers send both "2" and "0.5".
func number(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f >= 0 && f <= maxNumber) { // also rejects NaN
		return 0, false
	}
	return f, true
}

// maxNumber bounds a parsed wait so an absurd header cannot overflow a Duration.
const maxNumber = 1e9
