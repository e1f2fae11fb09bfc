package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/delegation/tool/mcp"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
)

// Config is agentry.yaml (DESIGN §8). Sources apply in order, a later one
// winning: defaults, the file, AGENTRY_* environment variables, flags.
type Config struct {
	Agents      string            `yaml:"agents"`    // the agents folder
	DB          string            `yaml:"db"`        // the trace database: a SQLite file, or a postgres:// URL (store.go)
	Workspace   string            `yaml:"workspace"` // root of the filesystem tools
	Addr        string            `yaml:"addr"`      // where serve listens
	Token       string            `yaml:"token"`     // required by serve on a non-loopback Addr
	Permissions PermissionsConfig `yaml:"permissions"`
	Delegation  DelegationConfig  `yaml:"delegation"`
	Models      ModelsConfig      `yaml:"models"`
	MCP         MCPConfig         `yaml:"mcp"`
	Web         WebConfig         `yaml:"web"`
	Serve       ServeConfig       `yaml:"serve"`      // what the web UI may do (serve.go)
	Workflows   string            `yaml:"workflows"`  // the workflows folder ("" = workflows)
	Skills      string            `yaml:"skills"`     // the skills folder ("" = skills beside the agents folder; skills.go)
	Plugins     string            `yaml:"plugins"`    // the installed plugins and their lock file ("" = .agentry/plugins; plugins.go)
	Hooks       HooksConfig       `yaml:"hooks"`      // commands around tools, delegations and runs (hooks.go)
	Prices      PricesConfig      `yaml:"prices"`     // USD per million tokens, over the shipped table (hooks.go)
	Shell       ShellConfig       `yaml:"shell"`      // shell.run (tools.go)
	WebSearch   WebSearchConfig   `yaml:"web_search"` // web.search (tools.go)
	Engine      string            `yaml:"engine"`     // inprocess (default) or temporal (engine.go)
	Temporal    TemporalConfig    `yaml:"temporal"`   // where engine: temporal sends runs (engine.go)
	Otel        OtelConfig        `yaml:"otel"`       // OTLP trace export (otel.go)
	Agent       AgentCompatConfig `yaml:"agent"`      // seed 003's spellings (orchestrator.go)
	Limits      LimitsConfig      `yaml:"limits"`     // the orchestration limit hierarchy: unset keys default per kind of run (orchestrator.go)
	// ApprovalTimeout is how long a call whose verdict is ask waits for an
	// answer before it is denied (approvals.go); 0 means 10m.
	ApprovalTimeout time.Duration `yaml:"approval_timeout"`
	Budget          BudgetConfig  `yaml:"budget"` // per run, over the whole tree (approvals.go)
	// File is the config file read (or, when absent, the default path
	// one would be read from): agentry's own state, which the tools an
	// agent runs may not touch (ownState).
	File string `yaml:"-"`
}

// PermissionsConfig is the global level of every permission chain.
type PermissionsConfig struct {
	Tools          RulesConfig `yaml:"tools"`
	DisabledAgents []string    `yaml:"disabled_agents"`
	// Skills are the global skills rules, the first level of every skills
	// chain (docs/skills.md); absent allows every skill.
	Skills RulesConfig `yaml:"skills"`
	// Subagents.Ask names agents every delegation to which needs approval.
	Subagents struct {
		Ask []string `yaml:"ask"`
	} `yaml:"subagents"`
}

// RulesConfig is an allow/deny/ask triple as written in the file.
type RulesConfig struct {
	Allow []string `yaml:"allow"`
	Deny  []string `yaml:"deny"`
	Ask   []string `yaml:"ask"`
}

// DelegationConfig holds the run-wide delegation limits.
type DelegationConfig struct {
	MaxDepth        int           `yaml:"max_depth"`
	MaxConcurrent   int           `yaml:"max_concurrent"` // across the whole tree
	MaxAgentsPerRun int           `yaml:"max_agents_per_run"`
	Timeout         time.Duration `yaml:"timeout"` // per run
	TokenBudget     int64         `yaml:"token_budget"`
}

// ModelsConfig picks the model for agents that do not name one and says
// where the real providers are.
type ModelsConfig struct {
	Default   string            `yaml:"default"`
	Aliases   map[string]string `yaml:"aliases"`
	OpenAI    ProviderConfig    `yaml:"openai"`    // the openai: provider (any OpenAI-compatible server)
	Anthropic ProviderConfig    `yaml:"anthropic"` // the anthropic: provider
}

// ProviderConfig is where a model provider's API is and the key it takes.
// An empty field falls back to the provider's usual environment variable
// (OPENAI_BASE_URL, OPENAI_API_KEY, ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY);
// a value set here, in the file or as AGENTRY_MODELS__OPENAI__API_KEY and
// the like, wins over it.
type ProviderConfig struct {
	// BaseURL is the API root: with the version path for openai
	// (http://localhost:11434/v1), without it for anthropic.
	BaseURL string `yaml:"base_url"`
	// APIKey is the provider's key; it may stay empty for a local server.
	APIKey string `yaml:"api_key"`
}

// MCPConfig lists the MCP servers whose tools join the runtime, each as the
// tool group named after the server (docs/mcp.md).
type MCPConfig struct {
	// StartTimeout bounds starting every server and listing its tools.
	StartTimeout time.Duration              `yaml:"start_timeout"`
	Servers      map[string]MCPServerConfig `yaml:"servers"`
}

// MCPServerConfig is one MCP server, started as a child process over stdio.
type MCPServerConfig struct {
	Command string            `yaml:"command"`
	Args    []string          `yaml:"args"`
	Env     map[string]string `yaml:"env"` // added to agentry's own environment
}

// defaultConfig is what agentry does with no file, no environment and no flags.
func defaultConfig() Config {
	return Config{
		Agents:      "agents",
		DB:          "agentry.db",
		Workspace:   ".",
		Addr:        "127.0.0.1:8080",
		Permissions: PermissionsConfig{Tools: RulesConfig{Allow: []string{"*"}}},
		Delegation: DelegationConfig{
			MaxDepth: permissions.DefaultMaxDepth, MaxConcurrent: 16, MaxAgentsPerRun: 100,
			Timeout: 10 * time.Minute,
		},
		// No default aliases: Claude Code's (sonnet, opus, haiku) name
		// Anthropic's models, and without a key run on the default with a
		// warning, so such files work offline.
		Models: ModelsConfig{Default: "demo"},
		MCP:    MCPConfig{StartTimeout: 30 * time.Second},
		Engine: EngineInProcess,
		Temporal: TemporalConfig{Address: temporal.DefaultAddress, Namespace: temporal.DefaultNamespace,
			TaskQueue: temporal.DefaultTaskQueue},
	}
}

// GlobalTools is the global level's tool rules.
func (c Config) GlobalTools() permissions.Rules {
	return permissions.Rules{Allow: c.Permissions.Tools.Allow, Deny: c.Permissions.Tools.Deny, Ask: c.Permissions.Tools.Ask}
}

// DelegationPolicy is the run-wide part of delegation decisions.
func (c Config) DelegationPolicy() permissions.Delegation {
	return permissions.Delegation{MaxDepth: c.Delegation.MaxDepth, Disabled: c.Permissions.DisabledAgents, Ask: c.Permissions.Subagents.Ask}
}

// loadConfig builds the configuration from every source, flags of fs last.
func (s *session) loadConfig(fs *flag.FlagSet) (Config, error) {
	cfg := defaultConfig()
	path, explicit := "agentry.yaml", false
	if f := fs.Lookup("config"); f != nil && f.Value.String() != "" {
		path, explicit = f.Value.String(), true
	}
	if err := loadConfigFile(&cfg, path, explicit); err != nil {
		return Config{}, err
	}
	cfg.File = path
	if err := applyEnv(&cfg, s.environ()); err != nil {
		return Config{}, err
	}
	for flagName, field := range map[string]*string{"agents": &cfg.Agents, "db": &cfg.DB, "addr": &cfg.Addr, "token": &cfg.Token, "workflows": &cfg.Workflows} {
		if f := fs.Lookup(flagName); f != nil && isFlagSet(fs, flagName) {
			*field = f.Value.String()
		}
	}
	if err := cfg.applyCompat(); err != nil {
		return Config{}, err
	}
	s.applyPlugins(&cfg)
	return cfg, cfg.validate()
}

// loadConfigFile decodes path over cfg. A missing default file is fine; a
// missing file the user named is not.
func loadConfigFile(cfg *Config, path string, explicit bool) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return nil
	}
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return decodeConfig(cfg, path, data)
}

// environ lists the process environment; sessions built by tests may leave it nil.
func (s *session) environ() []string {
	if s.env == nil {
		return nil
	}
	return s.env()
}

// applyEnv sets the keys named by AGENTRY_* variables: nested keys joined by
// "__", lists comma-separated, maps addressed by key
// (AGENTRY_MODELS__ALIASES__FAST=openai:gpt-4.1-mini).
func applyEnv(cfg *Config, environ []string) error {
	sort.Strings(environ) // deterministic error for several bad variables
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		key, ok := strings.CutPrefix(name, "AGENTRY_")
		if !ok {
			continue
		}
		path := strings.Split(strings.ToLower(key), "__")
		if err := setPath(reflect.ValueOf(cfg).Elem(), path, value); err != nil {
			return fmt.Errorf("environment %s: %w", name, err)
		}
	}
	return nil
}

func setPath(v reflect.Value, path []string, raw string) error {
	switch v.Kind() {
	case reflect.Pointer: // an optional key: set makes it present
		if len(path) != 0 {
			return fmt.Errorf("%q is not a section", path[0])
		}
		p := reflect.New(v.Type().Elem())
		if err := setScalar(p.Elem(), raw); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.Struct:
		if len(path) == 0 {
			return errors.New("names a section, not a key")
		}
		var known []string
		for i := 0; i < v.NumField(); i++ {
			tag := v.Type().Field(i).Tag.Get("yaml")
			if tag == "-" {
				continue
			}
			if tag == path[0] {
				return setPath(v.Field(i), path[1:], raw)
			}
			known = append(known, tag)
		}
		return fmt.Errorf("unknown key %q%s (known: %s)", path[0], didYouMean(path[0], known, ""), strings.Join(known, ", "))
	case reflect.Map:
		if v.Type().Elem().Kind() != reflect.String {
			return errors.New("is a map of sections, which only the config file can set")
		}
		if len(path) != 1 {
			return errors.New("a map entry needs exactly one key after the map's name")
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		v.SetMapIndex(reflect.ValueOf(path[0]), reflect.ValueOf(raw))
		return nil
	}
	if len(path) != 0 {
		return fmt.Errorf("%q is not a section", path[0])
	}
	return setScalar(v, raw)
}

func setScalar(v reflect.Value, raw string) error {
	switch {
	case v.Type() == reflect.TypeFor[time.Duration]():
		d, err := time.ParseDuration(raw)
		if err != nil {
			return fmt.Errorf("%q is not a duration like 90s or 10m", raw)
		}
		v.SetInt(int64(d))
	case v.Kind() == reflect.String:
		v.SetString(raw)
	case v.Kind() == reflect.Float64:
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", raw)
		}
		v.SetFloat(f)
	case v.Kind() == reflect.Int || v.Kind() == reflect.Int64:
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not a whole number", raw)
		}
		v.SetInt(n)
	case v.Kind() == reflect.Slice:
		list := []string{}
		for _, item := range strings.Split(raw, ",") {
			if item = strings.TrimSpace(item); item != "" {
				list = append(list, item)
			}
		}
		v.Set(reflect.ValueOf(list))
	default:
		return fmt.Errorf("cannot set a %s from the environment", v.Type())
	}
	return nil
}

// validate reports the first value no command could work with.
func (c Config) validate() error {
	positive := map[string]int{
		"delegation.max_depth": c.Delegation.MaxDepth, "delegation.max_concurrent": c.Delegation.MaxConcurrent,
		"delegation.max_agents_per_run": c.Delegation.MaxAgentsPerRun,
	}
	keys := make([]string, 0, len(positive))
	for k := range positive {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if positive[k] < 1 {
			return fmt.Errorf("config: %s must be at least 1, got %d", k, positive[k])
		}
	}
	switch {
	case c.Delegation.Timeout < 0:
		return fmt.Errorf("config: delegation.timeout must not be negative, got %s", c.Delegation.Timeout)
	case c.Delegation.TokenBudget < 0:
		return fmt.Errorf("config: delegation.token_budget must not be negative, got %d", c.Delegation.TokenBudget)
	case c.Models.Default == "":
		return errors.New("config: models.default must name a model, e.g. demo")
	case c.Agents == "":
		return errors.New("config: agents must name a folder")
	case c.MCP.StartTimeout < 0:
		return fmt.Errorf("config: mcp.start_timeout must not be negative, got %s", c.MCP.StartTimeout)
	}
	if err := c.validateEngine(); err != nil {
		return err
	}
	if err := c.validateApprovals(); err != nil {
		return err
	}
	if err := c.validateWeb(); err != nil {
		return err
	}
	if err := c.validateTools(); err != nil {
		return err
	}
	if err := c.validateCommandPatterns(); err != nil {
		return err
	}
	return c.validateMCP()
}

// validateMCP checks that every server name can be a tool group of its own.
func (c Config) validateMCP() error {
	for _, s := range c.mcpServers() {
		if err := s.Validate(); err != nil {
			return fmt.Errorf("config: mcp.servers: %w", err)
		}
		for _, builtin := range registry.BuiltinTools {
			if group, _, _ := strings.Cut(builtin, "."); group == s.Name {
				return fmt.Errorf("config: mcp.servers: %q is a built-in tool group; name the server differently", s.Name)
			}
		}
	}
	return nil
}

// mcpServers are the configured MCP servers, sorted by name.
func (c Config) mcpServers() []mcp.Server {
	names := make([]string, 0, len(c.MCP.Servers))
	for name := range c.MCP.Servers {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]mcp.Server, 0, len(names))
	for _, name := range names {
		sc := c.MCP.Servers[name]
		out = append(out, mcp.Server{Name: name, Command: sc.Command, Args: sc.Args, Env: sc.Env})
	}
	return out
}
