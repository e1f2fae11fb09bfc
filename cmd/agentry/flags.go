package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentry/agentry/cmd/agentry/config"
)

// configFlag is a flag that sets a configuration key; its value wins over
// the file and the environment (config.Sources.Flags).
type configFlag struct{ key, usage string }

// configFlags are declared here once; a command adds those it reads with
// addConfigFlags, as its own flags or, for a command with subcommands, as
// persistent ones.
var configFlags = map[string]configFlag{
	"agents":         {"agents", "the agents folder `DIR` (default agents)"},
	"db":             {"db", "the trace database: a SQLite file `PATH` (default agentry.db) or a postgres:// URL"},
	"workflows":      {"workflows", "the workflows folder `DIR` (default workflows)"},
	"evals":          {"evals", "the eval suites folder `DIR` (default evals)"},
	"addr":           {"addr", "the listen address `HOST:PORT` (default 127.0.0.1:8080)"},
	"token":          {"token", "the access `TOKEN`, at least 16 characters; required for a non-loopback --addr (or AGENTRY_TOKEN)"},
	"metrics-addr":   {"serve.metrics_addr", "serve Prometheus /metrics alone on `HOST:PORT`, without the token (default: on --addr, behind the token)"},
	"log-format":     {"serve.log_format", "log lines as `FORMAT`: text or json (default text)"},
	"shutdown-grace": {"serve.shutdown_grace", "on SIGTERM, how long running runs may finish before they are cancelled, a `DURATION` such as 30s (default 20s)"},
}

func addConfigFlags(fs *pflag.FlagSet, names ...string) {
	for _, name := range names {
		fs.String(name, "", configFlags[name].usage)
	}
}

// loadConfig builds the configuration from every source (package config),
// the flags cmd was given last. Its errors are configuration errors (exit 2).
func (s *session) loadConfig(cmd *cobra.Command) (config.Config, error) {
	src := config.Sources{Environ: s.environ()}
	if f := cmd.Flags().Lookup("config"); f != nil {
		src.File = f.Value.String()
	}
	for name, cf := range configFlags {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			src.Flags = append(src.Flags, config.Setting{Key: strings.Split(cf.key, "."), Value: f.Value.String(), Source: "--" + name})
		}
	}
	cfg, err := config.Load(src)
	if err != nil {
		return config.Config{}, configError{err}
	}
	s.applyPlugins(&cfg) // plugins.go: the enabled plugins' hooks and servers
	return cfg, nil
}

// environ lists the process environment; sessions built by tests may leave it nil.
func (s *session) environ() []string {
	if s.env == nil {
		return nil
	}
	return s.env()
}
