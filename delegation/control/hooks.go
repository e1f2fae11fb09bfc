package control

import (
	"context"

	"github.com/agentry/agentry/delegation/hooks"
)

// Hooks runs the user's hook commands at the runtime's hook points
// (*hooks.Runner is the implementation). Fire must be safe for concurrent
// use; it returns when every hook that matched has run, and its Outcome
// says whether one blocked the action.
type Hooks interface {
	Fire(ctx context.Context, p hooks.Point, ev hooks.Event) hooks.Outcome
}

// Prices turns a chat call's tokens into USD (*cost.Table is the
// implementation). ok is false for a model it has no price for; the chat
// span then carries no cost rather than a wrong one.
type Prices interface {
	Cost(spec string, input, output, cachedInput int64) (usd float64, ok bool)
}

// Blocked is the text a model (or parent) reads for an action a hook
// refused at point p.
func Blocked(p hooks.Point, reason string) string {
	return "denied by " + string(p) + " hook: " + reason
}
