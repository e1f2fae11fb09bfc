package tool

import "context"

type keyKey struct{}

// WithIdempotencyKey returns ctx carrying the call's idempotency key. An
// engine that may run a call again after a crash (delegation/temporal) sets
// it to run/invocation/call, the same on every attempt of one call.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, keyKey{}, key)
}

// IdempotencyKey returns the key on ctx, or "" when the call cannot be run
// twice (the in-process runtime). A tool with side effects that sees the
// same key again can return its first result instead of acting twice.
func IdempotencyKey(ctx context.Context) string {
	k, _ := ctx.Value(keyKey{}).(string)
	return k
}
