package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Serve serves one client over t (the tests' in-memory transport).
func Serve(s *Server, ctx context.Context, t sdk.Transport) error { return s.serve(ctx, t) }
