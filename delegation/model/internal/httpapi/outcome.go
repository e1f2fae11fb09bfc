package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/agentry/agentry/delegation/model"
)

// Options are an SDK's constructors of the request options Generate sets.
// Each of the providers' SDKs (openai-go, anthropic-sdk-go) has its own
// option type and these three functions, of the same names, to fill them in.
type Options[O any] struct {
	ResponseInto     func(dst **http.Response) O // option.WithResponseInto
	ResponseBodyInto func(dst any) O             // option.WithResponseBodyInto
	Header           func(key, value string) O   // option.WithHeader
}

// Generate is one model turn on an HTTP provider, which names its three
// parts: build makes the SDK's request from the runtime's, with the offered
// tools under the wire names given; send is the SDK's method that sends it
// (client.Messages.New, client.Chat.Completions.New); parse reads the
// decoded answer, naming its tool calls back. A request build refuses (a
// tool schema that is not an object) fails before anything is sent.
func Generate[P, T, O any](ctx context.Context, provider string, sdk Options[O], req *model.Request,
	build func(*model.Request, *ToolNames) (P, error),
	send func(context.Context, P, ...O) (*T, error),
	parse func(*T, *ToolNames) (*model.Response, error),
) (*model.Response, error) {
	names := NewToolNames(req.Tools)
	params, err := build(req, names)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", provider, err)
	}
	out, err := call(ctx, provider, sdk, send, params)
	if err != nil {
		return nil, err
	}
	return parse(out, names)
}

// call sends params and returns the decoded answer or the runtime's kind of
// error. send is given the options that keep the raw response and its body,
// which decide the outcome (outcome), and, when ctx carries the call's chat
// span, its traceparent header, so the provider's side can join the trace.
// What send decodes itself is not used.
func call[P, T, O any](ctx context.Context, provider string, sdk Options[O], send func(context.Context, P, ...O) (*T, error), params P) (*T, error) {
	var (
		res  *http.Response
		body []byte
	)
	opts := []O{sdk.ResponseInto(&res), sdk.ResponseBodyInto(&body)}
	if tp := model.TraceParent(ctx); tp != "" {
		opts = append(opts, sdk.Header("traceparent", tp))
	}
	_, err := send(ctx, params, opts...)
	return outcome[T](ctx, provider, err, res, body)
}

// outcome turns what one SDK call left behind (its error, the raw response
// and body it was told to keep) into the decoded answer or the runtime's
// kind of error.
//
// The status of the raw response decides, not the SDK's error type: the SDK
// cannot build its error from a non-JSON body (a proxy's 502 page), and such
// an answer must still be retried. The body is decoded here, not by the SDK,
// so that a body that does not parse (final) is never confused with a
// connection that broke off (transient): the SDK reports both with the same
// error values.
func outcome[T any](ctx context.Context, provider string, err error, res *http.Response, body []byte) (*T, error) {
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
