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

	"github.com/agentry/agentry/cmd/agentry/config"
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

// loadWith loads the configuration of the working directory with env as
// the environment.
func loadWith(t *testing.T, env []string) (config.Config, error) {
	t.Helper()
	return config.Load(config.Sources{Environ: env})
}

func TestFlagsGoAnywhereAndADoubleDashEndsThem(t *testing.T) {
	s, _, _ := testSession()
	cmd, rest, err := s.rootCommand().Find([]string{"run", "coordinator", "--json", "find -x sources", "--", "--literal"})
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Fatal(err)
	}
	asJSON, _ := cmd.Flags().GetBool("json")
	if args := cmd.Flags().Args(); cmd.Name() != "run" || !asJSON || strings.Join(args, "|") != "coordinator|find -x sources|--literal" {
		t.Errorf("%s: json=%v args=%q", cmd.Name(), asJSON, args)
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
	providers := modelProviders(config.Default(), os.Getenv)
	for spec, want := range map[string]string{"openai:m": "set OPENAI_API_KEY", "anthropic:m": "set ANTHROPIC_API_KEY"} {
		_, err := providers.Resolve(spec, nil)
		key := "models." + strings.Split(spec, ":")[0] + ".api_key"
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), key) {
			t.Errorf("%s: err = %v, want it to name %s and %s", spec, err, want[4:], key)
		}
	}
}
