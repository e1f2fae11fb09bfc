package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/hooks"
	"github.com/agentry/agentry/delegation/orchestrator"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadWith loads the configuration with env as the environment and args
// as the command line: --config FILE names the file, any other --KEY VALUE
// is a flag setting KEY.
func loadWith(t *testing.T, env []string, args ...string) (Config, error) {
	t.Helper()
	src := Sources{Environ: env}
	for i := 0; i+1 < len(args); i += 2 {
		name := strings.TrimPrefix(args[i], "--")
		if name == "config" {
			src.File = args[i+1]
			continue
		}
		src.Flags = append(src.Flags, Setting{Key: strings.Split(name, "."), Value: args[i+1], Source: args[i]})
	}
	return Load(src)
}

func TestConfigDefaultsWhenNothingIsGiven(t *testing.T) {
	t.Chdir(t.TempDir())
	cfg, err := loadWith(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Agents != "agents" || cfg.DB != "agentry.db" || cfg.Models.Default != "demo" ||
		cfg.Delegation.MaxDepth != 3 || cfg.Delegation.MaxConcurrent != 16 || cfg.Delegation.Timeout.D() != 10*time.Minute {
		t.Errorf("defaults = %+v", cfg)
	}
}

func TestConfigLaterSourcesWin(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeFile(t, dir, "agentry.yaml", "agents: from-file\ndb: file.db\ndelegation:\n  max_depth: 4\n  timeout: 2m\n")
	env := []string{"AGENTRY_DB=env.db", "AGENTRY_DELEGATION__MAX_DEPTH=5",
		"AGENTRY_PERMISSIONS__TOOLS__DENY=web, filesystem.write_file", "AGENTRY_MODELS__ALIASES__FAST=openai:gpt-4.1-mini"}
	cfg, err := loadWith(t, env, "--db", "flag.db")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Agents != "from-file" {
		t.Errorf("agents = %q, want the file's value", cfg.Agents)
	}
	if cfg.DB != "flag.db" {
		t.Errorf("db = %q, want the flag to win over env and file", cfg.DB)
	}
	if cfg.Delegation.MaxDepth != 5 {
		t.Errorf("max_depth = %d, want env (5) over file (4)", cfg.Delegation.MaxDepth)
	}
	if cfg.Delegation.Timeout.D() != 2*time.Minute {
		t.Errorf("timeout = %s, want the file's 2m", cfg.Delegation.Timeout)
	}
	if got := strings.Join(cfg.Permissions.Tools.Deny, "|"); got != "web|filesystem.write_file" {
		t.Errorf("deny = %q, want the comma list split and trimmed", got)
	}
	if cfg.Models.Aliases["fast"] != "openai:gpt-4.1-mini" || len(cfg.Models.Aliases) != 1 {
		t.Errorf("aliases = %v, want only fast", cfg.Models.Aliases)
	}
}

func TestConfigRejectsWhatItCannotUse(t *testing.T) {
	cases := []struct {
		name, file string
		env        []string
		want       string
	}{
		{name: "an unknown key in the file names the key and line", file: "delegation:\n  max_dept: 4\n", want: `agentry.yaml:2: unknown key "max_dept" in delegation; did you mean max_depth? (known keys: max_depth, `},
		{name: "a wrong type in the file", file: "delegation:\n  max_depth: three\n", want: `agentry.yaml:2: delegation.max_depth: "three" is not a whole number`},
		{name: "an unknown environment key lists the known ones", env: []string{"AGENTRY_DELEGATION__MAXDEPTH=2"}, want: `AGENTRY_DELEGATION__MAXDEPTH: unknown key "maxdepth" in delegation; did you mean max_depth? (known keys: max_depth`},
		{name: "a bad number from the environment", env: []string{"AGENTRY_DELEGATION__MAX_DEPTH=deep"}, want: `"deep" is not a whole number`},
		{name: "a bad duration from the environment", env: []string{"AGENTRY_DELEGATION__TIMEOUT=soon"}, want: `"soon" is not a duration`},
		{name: "a section set as a value", env: []string{"AGENTRY_DELEGATION=x"}, want: "environment AGENTRY_DELEGATION: delegation is a section of keys, not a value (its keys: max_depth"},
		{name: "a depth below one", env: []string{"AGENTRY_DELEGATION__MAX_DEPTH=0"}, want: "delegation.max_depth must be at least 1"},
		{name: "a negative budget", file: "delegation: {token_budget: -1}\n", want: "token_budget must not be negative"},
		{name: "a glob before a command pattern", file: "permissions:\n  tools:\n    allow:\n      - \"*(git *)\"\n", want: `agentry.yaml:4: permissions.tools.allow: "*(git *)": a pattern with an argument part must name one tool`},
		{name: "a command pattern on a tool without one", file: "permissions:\n  tools:\n    deny: [\"web.fetch(evil)\"]\n", want: `agentry.yaml:3: permissions.tools.deny: "web.fetch(evil)": web.fetch takes no argument`},
		{name: "a remote agent may not take the built-in agent's id", file: "a2a:\n  - {card: \"http://peer:8080\", id: general-purpose}\n", want: `config: a2a[0]: id "general-purpose" is the built-in agent's`},
		{name: "a command pattern on a group from the environment", env: []string{"AGENTRY_PERMISSIONS__TOOLS__ASK=shell(git push *)"}, want: `permissions.tools.ask: "shell(git push *)"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{}
			if c.file != "" {
				args = append(args, "--config", writeFile(t, dir, "agentry.yaml", c.file))
			}
			t.Chdir(dir)
			_, err := loadWith(t, c.env, args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestConfigNamedFileMustExist(t *testing.T) {
	t.Chdir(t.TempDir())
	if _, err := loadWith(t, nil, "--config", "missing.yaml"); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Fatalf("err = %v, want it to name the missing file", err)
	}
}

// TestTheREADMEConfigExampleLoads keeps the README's agentry.yaml true: every
// key it shows is one the loader knows, with a value it accepts.
func TestTheREADMEConfigExampleLoads(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(readme), "### Configuration")
	_, rest, _ = strings.Cut(rest, "```yaml\n")
	example, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("no yaml block under the README's Configuration heading")
	}
	dir := t.TempDir()
	t.Chdir(dir)
	writeFile(t, dir, "agentry.yaml", example)
	cfg, err := loadWith(t, nil)
	if err != nil {
		t.Fatalf("the README's config does not load: %v", err)
	}
	if _, orch := cfg.Limits.Runtime(); orch.WindowCalls != 50 || cfg.ApprovalTimeout.D() != 10*time.Minute || cfg.Otel.Protocol != "http/protobuf" || cfg.Delegation.MaxDepth != 3 {
		t.Errorf("loaded %+v; want the README's values", cfg)
	}
}

func TestSeed003sOrchestrationDepthIsMaxDepthOrANamedError(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeFile(t, dir, "agentry.yaml", "agent:\n  max_orchestration_depth: 5\n")
	cfg, err := loadWith(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Delegation.MaxDepth != 5 {
		t.Errorf("max_depth = %d, want 5 from agent.max_orchestration_depth", cfg.Delegation.MaxDepth)
	}
	writeFile(t, dir, "agentry.yaml", "agent:\n  max_orchestration_depth: 5\ndelegation:\n  max_depth: 4\n")
	if _, err := loadWith(t, nil); err == nil || !strings.Contains(err.Error(), "keep delegation.max_depth") {
		t.Fatalf("err = %v, want one naming delegation.max_depth", err)
	}
}

// Seed 001's figures are the defaults of orchestrator conversations; every
// other run keeps round one's meaning (no window, no per-turn caps, no
// loop limit) unless agentry.yaml or AGENTRY_LIMITS__* sets a key, which
// then applies to every run; 0 turns a limit off (issue 29).
func TestLimitsDefaultPerKindOfRunAndASetKeyAppliesToEvery(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	cfg, err := loadWith(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	plain, orch := cfg.Limits.Runtime()
	if orch != orchestrator.DefaultLimits() {
		t.Errorf("orchestrator limits = %+v, want seed 001's", orch)
	}
	if plain.WindowCalls != 0 || plain.TurnAgents != 0 || plain.TurnToolCalls != 0 || plain.OrchestratorTurns != 0 ||
		plain.ToolTimeout != 30*time.Second || plain.BreakerFailures != 5 || plain.DispatchTimeout != 30*time.Second {
		t.Errorf("plain limits = %+v, want no window, caps or loop limit, and the tool timeout and breakers", plain)
	}
	cfg, err = loadWith(t, []string{"AGENTRY_LIMITS__WINDOW_CALLS=0"})
	if err != nil {
		t.Fatal(err)
	}
	if _, orch = cfg.Limits.Runtime(); orch.WindowCalls != 0 || orch.TurnAgents != 8 {
		t.Errorf("orchestrator limits with the window off = %+v", orch)
	}
	writeFile(t, dir, "agentry.yaml", "limits:\n  window_calls: 100\n  turn_agents: 3\n")
	if cfg, err = loadWith(t, nil); err != nil {
		t.Fatal(err)
	}
	plain, orch = cfg.Limits.Runtime()
	for _, l := range []orchestrator.Limits{plain, orch} {
		if l.WindowCalls != 100 || l.Window != 5*time.Minute || l.TurnAgents != 3 {
			t.Errorf("limits = %+v, want the keys set for every run", l)
		}
	}
	if plain.TurnToolCalls != 0 || orch.TurnToolCalls != 30 {
		t.Errorf("an unset key: plain %d, orchestrator %d; want 0 and 30", plain.TurnToolCalls, orch.TurnToolCalls)
	}
	writeFile(t, dir, "agentry.yaml", "limits:\n  turn_agents: -1\n")
	if _, err := loadWith(t, nil); err == nil || !strings.Contains(err.Error(), "limits.turn_agents must not be negative") {
		t.Fatalf("err = %v", err)
	}
	writeFile(t, dir, "agentry.yaml", "limits:\n  window: soon\n")
	if _, err := loadWith(t, nil); err == nil || !strings.Contains(err.Error(), "window") {
		t.Fatalf("err = %v, want one naming limits.window", err)
	}
}

func TestEngineConfig(t *testing.T) {
	cases := []struct {
		name, file string
		env        []string
		want       string // error text; "" = loads
		engine     string
		temporal   TemporalConfig
	}{
		{name: "nothing given runs in-process, with Temporal's usual defaults", engine: EngineInProcess,
			temporal: TemporalConfig{Address: "localhost:7233", Namespace: "default", TaskQueue: "agentry"}},
		{name: "the file picks temporal and keeps the defaults it does not set", file: "engine: temporal\ntemporal: {address: \"temporal:7233\"}\n",
			engine: EngineTemporal, temporal: TemporalConfig{Address: "temporal:7233", Namespace: "default", TaskQueue: "agentry"}},
		{name: "the environment sets the task queue", env: []string{"AGENTRY_ENGINE=temporal", "AGENTRY_TEMPORAL__TASK_QUEUE=gpu"},
			engine: EngineTemporal, temporal: TemporalConfig{Address: "localhost:7233", Namespace: "default", TaskQueue: "gpu"}},
		{name: "an unknown engine is refused with the choices", file: "engine: kubernetes\n", want: `engine must be inprocess or temporal, got "kubernetes"`},
		{name: "an empty namespace is refused", file: "engine: temporal\ntemporal: {namespace: \"\"}\n", want: "namespace and task_queue must not be empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var args []string
			if c.file != "" {
				args = append(args, "--config", writeFile(t, dir, "agentry.yaml", c.file))
			}
			t.Chdir(dir)
			cfg, err := loadWith(t, c.env, args...)
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("err = %v, want it to contain %q", err, c.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Engine != c.engine || cfg.Temporal != c.temporal {
				t.Errorf("engine %q, temporal %+v; want %q, %+v", cfg.Engine, cfg.Temporal, c.engine, c.temporal)
			}
		})
	}
}

func TestHooksConfigErrorsNameTheLine(t *testing.T) {
	for name, c := range map[string]struct{ yaml, want string }{
		"unknown point": {"hooks:\n  before_tool: []\n", `line 2: hooks: unknown hook point "before_tool"`},
		"unknown key":   {"hooks:\n  pre_tool:\n    - command: x\n      matcher: y\n", `line 4: hooks.pre_tool: unknown key "matcher"`},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeFile(t, dir, "agentry.yaml", c.yaml)
			_, err := loadWith(t, nil, "--config", path)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func TestHooksConfigKeepsEveryForm(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "agentry.yaml", "hooks:\n  pre_tool: [{match: shell.run, command: ./check.sh, timeout: 2s, on_error: block}]\n  PreToolUse: [{matcher: Bash, hooks: [{type: command, command: ./cc.sh}]}]\n")
	cfg, err := loadWith(t, nil, "--config", path)
	if err != nil {
		t.Fatal(err)
	}
	pre := cfg.Hooks.Points[hooks.PreTool]
	if len(pre) != 1 || pre[0].OnError != "block" || pre[0].Timeout.Seconds() != 2 {
		t.Errorf("pre_tool = %+v", pre)
	}
	set, _, err := hooks.LoadClaude(cfg.Hooks.Claude, nil)
	if err != nil || len(set[hooks.PreTool]) != 1 || set[hooks.PreTool][0].Match != "shell.run" {
		t.Errorf("inline Claude Code hooks = %+v, %v", set, err)
	}
}

func TestConfigReadsMCPServers(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeFile(t, dir, "agentry.yaml", "mcp:\n  start_timeout: 5s\n  servers:\n    files:\n      command: npx\n      args: [-y, server-filesystem, /tmp]\n      env: {DEBUG: \"1\"}\n")
	cfg, err := loadWith(t, []string{"AGENTRY_MCP__START_TIMEOUT=7s"})
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.MCPServers()
	if len(got) != 1 || got[0].Name != "files" || got[0].Command != "npx" || len(got[0].Args) != 3 || got[0].Env["DEBUG"] != "1" {
		t.Errorf("servers = %+v", got)
	}
	if cfg.MCP.StartTimeout.D() != 7*time.Second {
		t.Errorf("start_timeout = %s, want the environment's 7s", cfg.MCP.StartTimeout)
	}
}

func TestConfigRejectsMCPServersItCannotUse(t *testing.T) {
	tests := []struct {
		name, file string
		env        []string
		want       string
	}{
		{"an unknown key in a server", "mcp:\n  servers:\n    x:\n      command: a\n      argz: [b]\n", nil, "argz"},
		{"an unknown key in the section", "mcp:\n  server: {}\n", nil, "server"},
		{"a name that cannot be a tool group", "mcp:\n  servers:\n    My.Server:\n      command: a\n", nil, `"My.Server"`},
		{"a name taken by a built-in group", "mcp:\n  servers:\n    web:\n      command: a\n", nil, `"web" is a built-in tool group`},
		{"a server without a command", "mcp:\n  servers:\n    x: {args: [a]}\n", nil, "command is empty"},
		{"a server set from the environment as a value", "", []string{"AGENTRY_MCP__SERVERS__X=cmd"}, "mcp.servers.x is a section of keys, not a value"},
		{"a negative start timeout", "mcp: {start_timeout: -1s}\n", nil, "start_timeout"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			writeFile(t, dir, "agentry.yaml", tc.file)
			_, err := loadWith(t, tc.env)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestWebConfigAllowsNamedNetworksAndRejectsMalformedOnes(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeFile(t, dir, "agentry.yaml", "web:\n  allow_hosts: [intranet.example]\n  allow_networks: [10.0.0.0/8]\n")
	cfg, err := loadWith(t, []string{"AGENTRY_WEB__ALLOW_NETWORKS=127.0.0.1/32, fd00::/8"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.Web.AllowNetworks, "|"); got != "127.0.0.1/32|fd00::/8" || strings.Join(cfg.Web.AllowHosts, "") != "intranet.example" {
		t.Fatalf("web = %+v", cfg.Web)
	}
	_, err = loadWith(t, []string{"AGENTRY_WEB__ALLOW_NETWORKS=10.0.0.0/99"})
	if err == nil || !strings.Contains(err.Error(), `config: web: allowed network "10.0.0.0/99"`) {
		t.Fatalf("err = %v, want the malformed range named", err)
	}
}

func TestShellAndWebSearchConfig(t *testing.T) {
	dir := t.TempDir()
	cfgPath := writeFile(t, dir, "agentry.yaml", "shell: {sandbox: none, timeout: 30s, output_limit: 1000}\nweb_search: {backend: searxng, url: \"http://127.0.0.1:8888\"}\n")
	cfg, err := loadWith(t, []string{"AGENTRY_SHELL__MAX_PROCESSES=50", "AGENTRY_WEB_SEARCH__URL=http://127.0.0.1:9999"}, "--config", cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	want := ShellConfig{Sandbox: "none", Timeout: Duration(30 * time.Second), OutputLimit: 1000, MaxProcesses: 50}
	if cfg.Shell != want || cfg.WebSearch != (WebSearchConfig{Backend: "searxng", URL: "http://127.0.0.1:9999"}) {
		t.Fatalf("shell %+v, web_search %+v", cfg.Shell, cfg.WebSearch)
	}
	for env, msg := range map[string]string{
		"AGENTRY_SHELL__SANDBOX=docker":      `shell.sandbox "docker"`,
		"AGENTRY_SHELL__TIMEOUT=-1s":         "shell.timeout must not be negative",
		"AGENTRY_WEB_SEARCH__BACKEND=google": `web_search.backend "google"`,
		"AGENTRY_WEB_SEARCH__API_KEY=k":      "no backend",
		"AGENTRY_SHELL__OUTPUT_LIMIT=-5":     "shell.output_limit",
		"AGENTRY_SHELL__MAX_PROCESSES=-1":    "shell.max_processes",
	} {
		if _, err := loadWith(t, []string{env}); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v; want %q", env, err, msg)
		}
	}
}

func TestConfigReadsAsksApprovalTimeoutAndBudget(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeFile(t, dir, "agentry.yaml", "approval_timeout: 2m\nbudget: {tokens: 5000, wall_clock: 15m}\n"+
		"permissions:\n  tools: {allow: [\"*\"], ask: [shell.run]}\n  subagents: {ask: [deployer]}\n")
	cfg, err := loadWith(t, []string{"AGENTRY_BUDGET__USD=2.5", "AGENTRY_PERMISSIONS__TOOLS__ASK=shell.run,filesystem.write_file"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ApprovalWait() != 2*time.Minute || cfg.Budget != (BudgetConfig{Tokens: 5000, USD: 2.5, WallClock: Duration(15 * time.Minute)}) {
		t.Errorf("approval_timeout %s, budget %+v", cfg.ApprovalTimeout, cfg.Budget)
	}
	if got := cfg.GlobalTools().Ask; strings.Join(got, ",") != "shell.run,filesystem.write_file" || cfg.DelegationPolicy().Ask[0] != "deployer" {
		t.Errorf("asks = %q, %q", got, cfg.DelegationPolicy().Ask)
	}
	writeFile(t, dir, "agentry.yaml", "budget: {tokens: -1}\n")
	if _, err := loadWith(t, nil); err == nil || !strings.Contains(err.Error(), "budget values must not be negative") {
		t.Errorf("a negative budget: %v", err)
	}
}

func TestOtelSectionDecodesAndRefusesUnknownKeys(t *testing.T) {
	var cfg Config
	err := cfg.decodeFile("agentry.yaml", []byte("otel:\n  endpoint: http://127.0.0.1:4318\n  protocol: grpc\n  headers: {x-key: k}\n  capture_content: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	if o := cfg.Otel; o.Endpoint != "http://127.0.0.1:4318" || o.Protocol != "grpc" || o.Headers["x-key"] != "k" || !o.CaptureContent {
		t.Errorf("otel = %+v", o)
	}
	err = cfg.decodeFile("agentry.yaml", []byte("otel:\n  endpoint: http://x\n  endpont: http://y\n"))
	if err == nil || !strings.Contains(err.Error(), "agentry.yaml:3") || !strings.Contains(err.Error(), `"endpont"`) {
		t.Errorf("err = %v, want the file, line 3 and the key", err)
	}
}

func TestEverySourceIsHeldToTheSameKeysAndTypes(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeFile(t, dir, "agentry.yaml", "budget: {tokens: 0, usd: 0, wall_clock: 0}\nlimits: {window: 0, tool_timeout: 5s}\nprices: {m: {input: 1, output: 2}}\n")
	cfg, err := loadWith(t, []string{"AGENTRY_MCP__SERVERS__FILES__COMMAND=npx", "AGENTRY_MCP__SERVERS__FILES__ARGS=-y, server", "AGENTRY_DB=null"},
		"--serve.shutdown_grace", "5s")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Limits.Window == nil || *cfg.Limits.Window != 0 || cfg.Limits.ToolTimeout.D() != 5*time.Second || cfg.Budget.WallClock != 0 {
		t.Errorf("a bare 0 is a zero duration: limits %+v, budget %+v", cfg.Limits, cfg.Budget)
	}
	if s := cfg.MCP.Servers["files"]; s.Command != "npx" || strings.Join(s.Args, "|") != "-y|server" {
		t.Errorf("a server from the environment = %+v", s)
	}
	if cfg.DB != "null" || cfg.Serve.ShutdownGrace.D() != 5*time.Second || cfg.Prices["m"].Output != 2 {
		t.Errorf("db %q (text stays text), shutdown_grace %s, prices %v", cfg.DB, cfg.Serve.ShutdownGrace, cfg.Prices)
	}
	for _, c := range []struct {
		env, flag []string
		want      string
	}{
		{env: []string{"AGENTRY_LIMITS__WINDOW=90"}, want: `environment AGENTRY_LIMITS__WINDOW: limits.window: "90" is not a duration like 90s or 10m`},
		{env: []string{"AGENTRY_MCP__SERVERS__FILES__COMAND=npx"}, want: `environment AGENTRY_MCP__SERVERS__FILES__COMAND: unknown key "comand" in mcp.servers.files; did you mean command? (known keys: command, args, env)`},
		{env: []string{"AGENTRY_PRICES__M__INPUT=cheap"}, want: `prices.m.input: "cheap" is not a number`},
		{flag: []string{"--serve.shutdown_grace", "soon"}, want: `--serve.shutdown_grace: serve.shutdown_grace: "soon" is not a duration`},
		{flag: []string{"--delegation", "3"}, want: `--delegation: delegation is a section of keys, not a value (its keys: max_depth, `},
	} {
		if _, err := loadWith(t, c.env, c.flag...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v: err = %v, want %q", c.env, c.flag, err, c.want)
		}
	}
}
