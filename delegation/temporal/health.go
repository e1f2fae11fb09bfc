package temporal

import (
	"context"

	"go.temporal.io/sdk/client"
)

// CheckHealth asks the Temporal frontend whether it serves, for a server's
// readiness probe (serve's /readyz when engine: temporal).
func (e *Engine) CheckHealth(ctx context.Context) error {
	_, err := e.client.CheckHealth(ctx, &client.CheckHealthRequest{})
	return err
}
