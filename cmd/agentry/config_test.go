package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
		{name: "an unknown key in the file names the key and line", file: "delegation:\n  max_dept: 4\n", want: "line 2: field max_dept not found"},
		{name: "a wrong type in the file", file: "delegation:\n  max_depth: three\n", want: "cannot unmarshal"},
		{name: "an unknown environment key lists the known ones", env: []string{"AGENTRY_DELEGATION__MAXDEPTH=2"}, want: `AGENTRY_DELEGATION__MAXDEPTH: unknown key "maxdepth" (known: max_depth`},
		{name: "a bad number from the environment", env: []string{"AGENTRY_DELEGATION__MAX_DEPTH=deep"}, want: `"deep" is not a whole number`},
		{name: "a bad duration from the environment", env: []string{"AGENTRY_DELEGATION__TIMEOUT=soon"}, want: `"soon" is not a duration`},
		{name: "a section set as a value", env: []string{"AGENTRY_DELEGATION=x"}, want: "names a section"},
		{name: "a depth below one", env: []string{"AGENTRY_DELEGATION__MAX_DEPTH=0"}, want: "delegation.max_depth must be at least 1"},
		{name: "a negative budget", file: "delegation: {token_budget: -1}\n", want: "token_budget must not be negative"},
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
