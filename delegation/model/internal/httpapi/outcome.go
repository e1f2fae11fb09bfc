package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Outcome turns what one SDK call left behind (its error, the raw response
// and body it was told to keep) into the decoded answer or the runtime's
// kind of error.
//
// The status of the raw response decides, not the SDK's error type: the SDK
// cannot build its error from a non-JSON body (a proxy's 502 page), and such
// an answer must still be retried. The body is decoded here, not by the SDK,
// so that a body that does not parse (final) is never confused with a
// connection that broke off (transient): the SDK reports both with the same
// error values.
func Outcome[T any](ctx context.Context, provider string, err error, res *http.Response, body []byte) (*T, error) {
	if err != nil {
		if ctx.Err() == nil && res != nil && res.StatusCode >= 400 {
			return nil, FromResponse(provider, res, time.Now())
		}
		return nil, Transport(ctx, provider, err)
	}
	out := new(T)
	if err := json.Unmarshal(body, out); err != nil {
		return nil, fmt.Errorf("%s: malformed response (HTTP %d): %w", provider, res.StatusCode, err)
	}
	return out, nil
}
