package config

import (
	"time"

	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/permissions"
)

// DefaultFile is the configuration file read when none is named.
const DefaultFile = "agentry.yaml"

// Engines a run can go to (engine:).
const (
	EngineInProcess = "inprocess"
	EngineTemporal  = "temporal"
)

// Config is agentry.yaml (DESIGN §8). Sources apply in order, a later one
// winning: defaults, the file, AGENTRY_* environment variables, flags.
type Config struct {
	Agents      string            `yaml:"agents"`    // the agents folder
	DB          string            `yaml:"db"`        // the trace database: a SQLite file, or a postgres:// URL
	Workspace   string            `yaml:"workspace"` // root of the filesystem tools
	Addr        string            `yaml:"addr"`      // where serve listens
	Token       string            `yaml:"token"`     // required by serve on a non-loopback Addr
	Permissions PermissionsConfig `yaml:"permissions"`
	Delegation  DelegationConfig  `yaml:"delegation"`
	Models      ModelsConfig      `yaml:"models"`
	MCP         MCPConfig         `yaml:"mcp"`
	Web         WebConfig         `yaml:"web"`
	Serve       ServeConfig       `yaml:"serve"`      // what the web UI may do
	Workflows   string            `yaml:"workflows"`  // the workflows folder ("" = workflows)
	Skills      string            `yaml:"skills"`     // the skills folder ("" = skills beside the agents folder; docs/skills.md)
	Plugins     string            `yaml:"plugins"`    // the installed plugins and their lock file ("" = .agentry/plugins; docs/plugins.md)
	Evals       string            `yaml:"evals"`      // the eval suites folder ("" = evals; docs/evals.md)
	Hooks       HooksConfig       `yaml:"hooks"`      // commands around tools, delegations and runs (hooks.go)
	Prices      PricesConfig      `yaml:"prices"`     // USD per million tokens, over the shipped table
	Shell       ShellConfig       `yaml:"shell"`      // shell.run
	WebSearch   WebSearchConfig   `yaml:"web_search"` // web.search
	Engine      string            `yaml:"engine"`     // EngineInProcess (default) or EngineTemporal
	Temporal    TemporalConfig    `yaml:"temporal"`   // where engine: temporal sends runs
	Otel        OtelConfig        `yaml:"otel"`       // OTLP trace export
	Agent       AgentCompatConfig `yaml:"agent"`      // seed 003's spellings (limits.go)
	Limits      LimitsConfig      `yaml:"limits"`     // the orchestration limit hierarchy (limits.go)
	// ApprovalTimeout is how long a call whose verdict is ask waits for an
	// answer before it is denied; 0 means control.DefaultApprovalTimeout.
	ApprovalTimeout Duration     `yaml:"approval_timeout"`
	Budget          BudgetConfig `yaml:"budget"` // per run, over the whole tree
	// Expose names the agents and workflows outside tools may run (MCP,
	// A2A, the API) and their permission level (expose.go).
	Expose ExposeConfig `yaml:"expose"`
	// A2A names A2A agents elsewhere that agents here may delegate to
	// (a2a.go, docs/a2a.md).
	A2A []A2AAgentConfig `yaml:"a2a"`
	// File is the config file read (or, when absent, the default path
	// one would be read from): agentry's own state, which the tools an
	// agent runs may not touch.
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
	MaxDepth        int      `yaml:"max_depth"`
	MaxConcurrent   int      `yaml:"max_concurrent"` // across the whole tree
	MaxAgentsPerRun int      `yaml:"max_agents_per_run"`
	Timeout         Duration `yaml:"timeout"` // per run
	TokenBudget     int64    `yaml:"token_budget"`
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
	StartTimeout Duration                   `yaml:"start_timeout"`
	Servers      map[string]MCPServerConfig `yaml:"servers"`
}

// MCPServerConfig is one MCP server, started as a child process over stdio.
type MCPServerConfig struct {
	Command string            `yaml:"command"`
	Args    []string          `yaml:"args"`
	Env     map[string]string `yaml:"env"` // added to agentry's own environment
}

// WebConfig says which non-public addresses the web tools may reach; by
// default they reach only the public internet (package netguard).
type WebConfig struct {
	// AllowHosts are host names reachable whatever they resolve to
	// (exact, or "*.example.com").
	AllowHosts []string `yaml:"allow_hosts"`
	// AllowNetworks are non-public ranges reachable, as CIDR or addresses.
	AllowNetworks []string `yaml:"allow_networks"`
}

// ServeConfig is what the web UI may do beyond editing agents and running
// them on the configured models, and how serve is operated.
type ServeConfig struct {
	// ScriptDir, when set, lets the browser run script:NAME models read from
	// this folder only (no paths out of it, no symlinks out, at most 1 MiB).
	// Empty, the default, turns script models off in serve.
	ScriptDir string `yaml:"script_dir"`
	// MetricsAddr, when set, serves Prometheus' /metrics there alone,
	// without the UI's token (--metrics-addr); empty serves it on the UI's
	// address behind the token.
	MetricsAddr string `yaml:"metrics_addr"`
	// LogFormat is text (default) or json (--log-format).
	LogFormat string `yaml:"log_format"`
	// ShutdownGrace is how long SIGTERM lets running runs finish before
	// they are cancelled (--shutdown-grace); 0 means serve's default.
	ShutdownGrace Duration `yaml:"shutdown_grace"`
}

// ShellConfig is shell.run's part of agentry.yaml (docs/tools-builtin.md).
type ShellConfig struct {
	// Sandbox is "bwrap" (the default) or "none", which runs commands
	// unsandboxed; without bwrap, shell.run is otherwise unavailable.
	Sandbox string `yaml:"sandbox"`
	// Timeout is the default per-command limit (2m when zero).
	Timeout Duration `yaml:"timeout"`
	// OutputLimit caps stdout and stderr each, in bytes (64 KiB when zero).
	OutputLimit int `yaml:"output_limit"`
	// MaxProcesses caps a command's processes at once (256 when zero).
	MaxProcesses int `yaml:"max_processes"`
}

// WebSearchConfig is web.search's backend (docs/tools-builtin.md); with no
// backend the tool is listed as unavailable.
type WebSearchConfig struct {
	Backend string `yaml:"backend"` // searxng | brave
	URL     string `yaml:"url"`     // the SearXNG instance; optional for brave
	APIKey  string `yaml:"api_key"` // Brave's subscription token
}

// TemporalConfig is the temporal: section: where engine: temporal submits
// runs and which task queue `agentry worker` serves (docs/temporal.md).
type TemporalConfig struct {
	Address   string `yaml:"address"`    // the frontend's host:port
	Namespace string `yaml:"namespace"`  // must exist on the server
	TaskQueue string `yaml:"task_queue"` // the queue workers poll
}

// OtelConfig is the `otel:` section: where spans go over OTLP. Empty fields
// take the standard OTEL_EXPORTER_OTLP_* variables (trace/otlp.Resolve).
type OtelConfig struct {
	Endpoint       string            `yaml:"endpoint"` // collector base URL, e.g. http://127.0.0.1:4318
	Protocol       string            `yaml:"protocol"` // http/protobuf or grpc
	Headers        map[string]string `yaml:"headers"`
	ServiceName    string            `yaml:"service_name"`
	CaptureContent bool              `yaml:"capture_content"` // send tasks, results and tool arguments
}

// BudgetConfig is the `budget:` key: caps per run, counted over the whole
// tree (docs/cost.md). 0 sets no cap.
type BudgetConfig struct {
	Tokens    int64    `yaml:"tokens"`
	USD       float64  `yaml:"usd"`
	WallClock Duration `yaml:"wall_clock"`
}

// Default is what agentry does with no file, no environment and no flags.
func Default() Config {
	return Config{
		Agents:      "agents",
		DB:          "agentry.db",
		Workspace:   ".",
		Addr:        "127.0.0.1:8080",
		Permissions: PermissionsConfig{Tools: RulesConfig{Allow: []string{"*"}}},
		Delegation: DelegationConfig{
			MaxDepth: permissions.DefaultMaxDepth, MaxConcurrent: 16, MaxAgentsPerRun: 100,
			Timeout: Duration(10 * time.Minute),
		},
		// No default aliases: Claude Code's (sonnet, opus, haiku) name
		// Anthropic's models, and without a key run on the default with a
		// warning, so such files work offline.
		Models: ModelsConfig{Default: "demo"},
		MCP:    MCPConfig{StartTimeout: Duration(30 * time.Second)},
		Engine: EngineInProcess,
		Temporal: TemporalConfig{Address: temporal.DefaultAddress, Namespace: temporal.DefaultNamespace,
			TaskQueue: temporal.DefaultTaskQueue},
	}
}
