package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/delegation/tool/mcp"
	"github.com/agentry/agentry/registry"
)

// startMCP starts every configured MCP server at once, bounded by
// mcp.start_timeout. Tools a server lists but agentry cannot name are
// reported on stderr; the servers run until stop is called.
func (s *session) startMCP(ctx context.Context, cfg config.Config) (set mcp.Set, stop func(), err error) {
	servers := cfg.MCPServers()
	if len(servers) == 0 {
		return nil, func() {}, nil
	}
	if cfg.MCP.StartTimeout.D() > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.MCP.StartTimeout.D())
		defer cancel()
	}
	set, err = mcp.ConnectAll(ctx, servers)
	if err != nil {
		return nil, nil, fmt.Errorf("mcp: %w", err)
	}
	for _, c := range set {
		for _, why := range c.Skipped() {
			fmt.Fprintf(s.stderr, "agentry: mcp server %q: %s; it is left out\n", c.Name(), why)
		}
	}
	stop = func() {
		if err := set.Close(); err != nil {
			fmt.Fprintf(s.stderr, "agentry: %v\n", err)
		}
	}
	return set, stop, nil
}

// knownTools are the tool names validation accepts: the built-in tools and,
// for each configured MCP server, "<server>.*", since a server's tools are
// only listed once it runs.
func knownTools(cfg config.Config) []string {
	known := append(slices.Clone(registry.BuiltinTools), config.OptionalTools...)
	for _, s := range cfg.MCPServers() {
		known = append(known, s.Name+".*")
	}
	return known
}
