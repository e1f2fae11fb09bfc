package main

import (
	"fmt"

	"github.com/agentry/agentry/delegation/tool/netguard"
)

// WebConfig says which non-public addresses the web tools may reach; by
// default they reach only the public internet (package netguard).
type WebConfig struct {
	// AllowHosts are host names reachable whatever they resolve to
	// (exact, or "*.example.com").
	AllowHosts []string `yaml:"allow_hosts"`
	// AllowNetworks are non-public ranges reachable, as CIDR or addresses.
	AllowNetworks []string `yaml:"allow_networks"`
}

// validateWeb reports a malformed web.allow_hosts or web.allow_networks entry.
func (c Config) validateWeb() error {
	if _, err := netguard.New(netguard.Config{AllowHosts: c.Web.AllowHosts, AllowCIDRs: c.Web.AllowNetworks}); err != nil {
		return fmt.Errorf("config: web: %w", err)
	}
	return nil
}
