package main

import (
	"bytes"
	"context"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/model"
)

// testSession is a session with captured output and the given environment.
func testSession(env ...string) (*session, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	lookup := func(k string) string {
		for _, kv := range env {
			if name, v, _ := strings.Cut(kv, "="); name == k {
				return v
			}
		}
		return ""
	}
	return &session{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: lookup,
		env: func() []string { return env }}, &out, &errOut
}

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

func loadWith(t *testing.T, env []string, args ...string) (Config, error) {
	t.Helper()
	s, _, _ := testSession(env...)
	fs := s.flagSet("test")
	fs.String("addr", "", "")
	if _, err := parseInterspersed(fs, args); err != nil {
		t.Fatal(err)
	}
	return s.loadConfig(fs)
}

func TestConfigDefaultsWhenNothingIsGiven(t *testing.T) {
	t.Chdir(t.TempDir())
	cfg, err := loadWith(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Agents != "agents" || cfg.DB != "agentry.db" || cfg.Models.Default != "demo" ||
		cfg.Delegation.MaxDepth != 3 || cfg.Delegation.MaxConcurrent != 16 || cfg.Delegation.Timeout != 10*time.Minute {
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
	if cfg.Delegation.Timeout != 2*time.Minute {
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
		{name: "an unknown environment key lists the known ones", env: []string{"AGENTRY_DELEGATION__MAXDEPTH=2"}, want: `AGENTRY_DELEGATION__MAXDEPTH: unknown key "maxdepth"; did you mean max_depth? (known: max_depth`},
		{name: "a bad number from the environment", env: []string{"AGENTRY_DELEGATION__MAX_DEPTH=deep"}, want: `"deep" is not a whole number`},
		{name: "a bad duration from the environment", env: []string{"AGENTRY_DELEGATION__TIMEOUT=soon"}, want: `"soon" is not a duration`},
		{name: "a section set as a value", env: []string{"AGENTRY_DELEGATION=x"}, want: "names a section"},
		{name: "a depth below one", env: []string{"AGENTRY_DELEGATION__MAX_DEPTH=0"}, want: "delegation.max_depth must be at least 1"},
		{name: "a negative budget", file: "delegation: {token_budget: -1}\n", want: "token_budget must not be negative"},
		{name: "a glob before a command pattern", file: "permissions:\n  tools:\n    allow:\n      - \"*(git *)\"\n", want: `agentry.yaml:4: permissions.tools.allow: "*(git *)": a pattern with an argument part must name one tool`},
		{name: "a command pattern on a tool without one", file: "permissions:\n  tools:\n    deny: [\"web.fetch(evil)\"]\n", want: `agentry.yaml:3: permissions.tools.deny: "web.fetch(evil)": web.fetch takes no argument`},
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

func TestParseInterspersedTakesFlagsAnywhere(t *testing.T) {
	s, _, _ := testSession()
	fs := s.flagSet("run")
	asJSON := fs.Bool("json", false, "")
	rest, err := parseInterspersed(fs, []string{"coordinator", "--json", "find -x sources", "--", "--literal"})
	if err != nil {
		t.Fatal(err)
	}
	if !*asJSON || strings.Join(rest, "|") != "coordinator|find -x sources|--literal" {
		t.Errorf("json=%v rest=%q", *asJSON, rest)
	}
}

func TestProviderSettingsFromTheConfigWinOverTheirEnvironmentVariables(t *testing.T) {
	providerEnv := []string{
		"OPENAI_BASE_URL=http://env-openai/v1", "OPENAI_API_KEY=env-openai-key",
		"ANTHROPIC_BASE_URL=http://env-anthropic", "ANTHROPIC_API_KEY=env-anthropic-key",
	}
	cases := []struct {
		name            string
		file            string
		env             []string
		openai, anthrop [2]string // base URL, key
	}{
		{name: "with nothing configured the usual variables are used", env: providerEnv,
			openai:  [2]string{"http://env-openai/v1", "env-openai-key"},
			anthrop: [2]string{"http://env-anthropic", "env-anthropic-key"}},
		{name: "the file wins over the usual variables",
			file: "models:\n  openai: {base_url: \"http://file-openai/v1\", api_key: file-openai-key}\n  anthropic: {base_url: \"http://file-anthropic\", api_key: file-anthropic-key}\n",
			env:  providerEnv, openai: [2]string{"http://file-openai/v1", "file-openai-key"},
			anthrop: [2]string{"http://file-anthropic", "file-anthropic-key"}},
		{name: "a field the config leaves empty falls back to its variable",
			file: "models:\n  openai: {base_url: \"http://localhost:11434/v1\"}\n  anthropic: {api_key: file-anthropic-key}\n",
			env:  providerEnv, openai: [2]string{"http://localhost:11434/v1", "env-openai-key"},
			anthrop: [2]string{"http://env-anthropic", "file-anthropic-key"}},
		{name: "AGENTRY_ variables win over the file and the usual variables",
			file: "models:\n  openai: {api_key: file-openai-key}\n",
			env: append([]string{"AGENTRY_MODELS__OPENAI__API_KEY=agentry-openai-key", "AGENTRY_MODELS__ANTHROPIC__BASE_URL=http://agentry-anthropic"},
				providerEnv...),
			openai:  [2]string{"http://env-openai/v1", "agentry-openai-key"},
			anthrop: [2]string{"http://agentry-anthropic", "env-anthropic-key"}},
		{name: "with neither, both stay empty (the providers' defaults)", openai: [2]string{}, anthrop: [2]string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			if c.file != "" {
				writeFile(t, dir, "agentry.yaml", c.file)
			}
			cfg, err := loadWith(t, c.env)
			if err != nil {
				t.Fatal(err)
			}
			s, _, _ := testSession(c.env...)
			oa, an := providerConfigs(cfg.Models, s.getenv)
			if got := [2]string{oa.BaseURL, oa.APIKey}; got != c.openai {
				t.Errorf("openai = %q, want %q", got, c.openai)
			}
			if got := [2]string{an.BaseURL, an.APIKey}; got != c.anthrop {
				t.Errorf("anthropic = %q, want %q", got, c.anthrop)
			}
		})
	}
}

func TestTheProvidersTalkToTheConfiguredServerWithTheConfiguredKey(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{} // path → key it carried
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path] = r.Header.Get("Authorization") + r.Header.Get("X-Api-Key")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/chat/completions":
			io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"from openai"}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
		case "/v1/messages":
			io.WriteString(w, `{"id":"m","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"from anthropic"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	// The usual variables point elsewhere; the configuration must win.
	t.Setenv("OPENAI_BASE_URL", "http://env-openai.invalid/v1")
	t.Setenv("OPENAI_API_KEY", "env-openai-key")
	t.Setenv("ANTHROPIC_BASE_URL", "http://env-anthropic.invalid")
	t.Setenv("ANTHROPIC_API_KEY", "env-anthropic-key")
	dir := t.TempDir()
	t.Chdir(dir)
	writeFile(t, dir, "agentry.yaml", "models:\n  openai: {base_url: \""+srv.URL+"/v1\", api_key: file-openai-key}\n  anthropic: {base_url: \""+srv.URL+"\"}\n")
	cfg, err := loadWith(t, []string{"AGENTRY_MODELS__ANTHROPIC__API_KEY=agentry-anthropic-key"})
	if err != nil {
		t.Fatal(err)
	}
	providers := modelProviders(cfg, os.Getenv)
	for spec, want := range map[string]string{"openai:m": "from openai", "anthropic:m": "from anthropic"} {
		llm, err := providers.Resolve(spec, nil)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		resp, err := llm.Generate(context.Background(), &model.Request{Agent: "a", Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})
		if err != nil || resp.Text != want {
			t.Fatalf("%s answered %+v, %v", spec, resp, err)
		}
	}
	want := map[string]string{"/v1/chat/completions": "Bearer file-openai-key", "/v1/messages": "agentry-anthropic-key"}
	if !maps.Equal(seen, want) {
		t.Fatalf("the server saw %v, want %v", seen, want)
	}
}

func TestAMissingProviderKeyNamesTheConfigKeyToo(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ANTHROPIC_BASE_URL", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	providers := modelProviders(defaultConfig(), os.Getenv)
	for spec, want := range map[string]string{"openai:m": "set OPENAI_API_KEY", "anthropic:m": "set ANTHROPIC_API_KEY"} {
		_, err := providers.Resolve(spec, nil)
		key := "models." + strings.Split(spec, ":")[0] + ".api_key"
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), key) {
			t.Errorf("%s: err = %v, want it to name %s and %s", spec, err, want[4:], key)
		}
	}
}

// TestTheREADMEConfigExampleLoads keeps the README's agentry.yaml true: every
// key it shows is one the loader knows, with a value it accepts.
func TestTheREADMEConfigExampleLoads(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
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
	if _, orch := cfg.Limits.runtime(); orch.WindowCalls != 50 || cfg.ApprovalTimeout != 10*time.Minute || cfg.Otel.Protocol != "http/protobuf" || cfg.Delegation.MaxDepth != 3 {
		t.Errorf("loaded %+v; want the README's values", cfg)
	}
}
