package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentry/agentry/delegation/tool/netguard"
	"github.com/agentry/agentry/delegation/tool/shell"
	"github.com/agentry/agentry/delegation/tool/todo"
	"github.com/agentry/agentry/delegation/tool/websearch"
	"github.com/agentry/agentry/registry"
)

// validate reports the first value no command could work with. Each check
// is a section's; the order only decides which of several problems is told.
func (c Config) validate() error {
	for _, check := range []func() error{c.validateDelegation, c.Limits.check, c.validateEngine, c.validateApprovals,
		c.validateWeb, c.validateTools, c.validateCommandPatterns, c.validateExpose, c.validateMCP, c.validateA2A} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (c Config) validateDelegation() error {
	d := c.Delegation
	for _, k := range []struct {
		key   string
		value int
	}{{"delegation.max_agents_per_run", d.MaxAgentsPerRun}, {"delegation.max_concurrent", d.MaxConcurrent}, {"delegation.max_depth", d.MaxDepth}} {
		if k.value < 1 {
			return fmt.Errorf("config: %s must be at least 1, got %d", k.key, k.value)
		}
	}
	switch {
	case d.Timeout < 0:
		return fmt.Errorf("config: delegation.timeout must not be negative, got %s", d.Timeout)
	case d.TokenBudget < 0:
		return fmt.Errorf("config: delegation.token_budget must not be negative, got %d", d.TokenBudget)
	case c.Models.Default == "":
		return errors.New("config: models.default must name a model, e.g. demo")
	case c.Agents == "":
		return errors.New("config: agents must name a folder")
	case c.MCP.StartTimeout < 0:
		return fmt.Errorf("config: mcp.start_timeout must not be negative, got %s", c.MCP.StartTimeout)
	}
	return nil
}

func (c Config) validateEngine() error {
	switch c.Engine {
	case EngineInProcess, EngineTemporal:
	default:
		return fmt.Errorf("config: engine must be %s or %s, got %q", EngineInProcess, EngineTemporal, c.Engine)
	}
	if c.Engine == EngineTemporal && (c.Temporal.Address == "" || c.Temporal.Namespace == "" || c.Temporal.TaskQueue == "") {
		return errors.New("config: temporal: address, namespace and task_queue must not be empty")
	}
	return nil
}

// validateApprovals reports a negative approval_timeout or budget.
func (c Config) validateApprovals() error {
	switch b := c.Budget; {
	case c.ApprovalTimeout < 0:
		return fmt.Errorf("config: approval_timeout must not be negative, got %s", c.ApprovalTimeout)
	case b.Tokens < 0 || b.USD < 0 || b.WallClock < 0:
		return fmt.Errorf("config: budget values must not be negative, got {tokens: %d, usd: %g, wall_clock: %s}", b.Tokens, b.USD, b.WallClock)
	}
	return nil
}

// validateWeb reports a malformed web.allow_hosts or web.allow_networks entry.
func (c Config) validateWeb() error {
	if _, err := netguard.New(netguard.Config{AllowHosts: c.Web.AllowHosts, AllowCIDRs: c.Web.AllowNetworks}); err != nil {
		return fmt.Errorf("config: web: %w", err)
	}
	return nil
}

// validateTools checks the shell and web_search sections.
func (c Config) validateTools() error {
	switch sh := c.Shell; {
	case sh.Sandbox != "" && sh.Sandbox != shell.SandboxBwrap && sh.Sandbox != shell.SandboxNone:
		return fmt.Errorf("config: shell.sandbox %q: want bwrap or none", sh.Sandbox)
	case sh.Timeout < 0:
		return fmt.Errorf("config: shell.timeout must not be negative, got %s", sh.Timeout)
	case sh.OutputLimit < 0:
		return fmt.Errorf("config: shell.output_limit must not be negative, got %d", sh.OutputLimit)
	case sh.MaxProcesses < 0:
		return fmt.Errorf("config: shell.max_processes must not be negative, got %d", sh.MaxProcesses)
	}
	b := c.WebSearch.Backend
	if b != "" && b != websearch.SearXNG && b != websearch.Brave {
		return fmt.Errorf("config: web_search.backend %q: want searxng or brave", b)
	}
	if b == "" && (c.WebSearch.URL != "" || c.WebSearch.APIKey != "") {
		return errors.New("config: web_search has a url or api_key but no backend (searxng or brave)")
	}
	return nil
}

// validateCommandPatterns refuses a global tool pattern with an argument
// part that does not name the shell (registry.CommandPatternProblem):
// "*(git *)" or "web.fetch(x)" in permissions.tools would otherwise
// restrict nothing, silently. The file's patterns were checked with their
// lines already (checkFilePatterns); these may come from the environment.
func (c Config) validateCommandPatterns() error {
	for _, l := range []struct {
		name     string
		patterns []string
	}{{"allow", c.Permissions.Tools.Allow}, {"deny", c.Permissions.Tools.Deny}, {"ask", c.Permissions.Tools.Ask}} {
		for _, p := range l.patterns {
			if why := registry.CommandPatternProblem(p); why != "" {
				return fmt.Errorf("config: permissions.tools.%s: %s", l.name, why)
			}
		}
	}
	return nil
}

// validateMCP checks that every server name can be a tool group of its own.
func (c Config) validateMCP() error {
	builtin := append([]string{}, registry.BuiltinTools...)
	builtin = append(builtin, OptionalTools...)
	for _, s := range c.MCPServers() {
		if err := s.Validate(); err != nil {
			return fmt.Errorf("config: mcp.servers: %w", err)
		}
		for _, name := range builtin {
			if group, _, _ := strings.Cut(name, "."); group == s.Name {
				return fmt.Errorf("config: mcp.servers: %q is a built-in tool group; name the server differently", s.Name)
			}
		}
	}
	return nil
}

// OptionalTools are the built-in tools that depend on this machine or on
// configuration (shell.run needs bubblewrap, web.search a backend), and
// shell.run's network capability, which files grant too: they are known
// names whether or not they can run here.
var OptionalTools = []string{shell.Name, shell.Network, websearch.Name, todo.Name}

// CheckServe refuses serve settings serve cannot use; only serve reads them.
func (s ServeConfig) CheckServe() error {
	switch s.LogFormat {
	case "", "text", "json":
	default:
		return fmt.Errorf("--log-format (serve.log_format) must be text or json, got %q", s.LogFormat)
	}
	if s.ShutdownGrace < 0 {
		return fmt.Errorf("--shutdown-grace (serve.shutdown_grace) must not be negative, got %s", s.ShutdownGrace)
	}
	return nil
}
