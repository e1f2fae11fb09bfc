// Command agentry runs, edits and traces LLM agents written as Markdown files.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one subcommand. run returns the process exit code.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, s *session, args []string) int
}

// commands is the whole CLI; only subcommands that work are listed.
var commands = []command{
	{"validate", "check the agent files and report problems", validateCommand},
	{"permissions", "show an agent's effective tools and sub-agents, with reasons", permissionsCommand},
	{"serve", "serve the web UI: edit agents, start runs, watch timelines", serveCommand},
	{"traces", "list, show, export and import run traces", tracesCommand},
	{"run", "run an agent on a task, streaming progress and writing its trace", runCommand},
	{"workflow", "run, explain, validate or write YAML workflows of agents", workflowCommand},
}

// session is what a command may touch of the process: its streams and environment.
// Tests build one with buffers and a fake environment.
type session struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	env            func() []string // the whole environment, for AGENTRY_* configuration
}

func main() {
	s := &session{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, env: os.Environ}
	os.Exit(s.main(context.Background(), os.Args[1:]))
}

func (s *session) main(ctx context.Context, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		s.usage(s.stdout)
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(ctx, s, args[1:])
		}
	}
	fmt.Fprintf(s.stderr, "agentry: unknown command %q\n\n", args[0])
	s.usage(s.stderr)
	return 2
}

func (s *session) usage(w io.Writer) {
	fmt.Fprintln(w, "usage: agentry COMMAND [flags]\n\ncommands:")
	sorted := append([]command(nil), commands...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].name < sorted[j].name })
	for _, c := range sorted {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'agentry COMMAND -h' for a command's flags.")
}

// flagSet returns a flag set for a subcommand with the flags every command shares.
// Errors are returned, not fatal, so a command can exit with code 2.
func (s *session) flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("agentry "+name, flag.ContinueOnError)
	fs.SetOutput(s.stderr)
	fs.String("config", "", "configuration file (default agentry.yaml when present)")
	fs.String("agents", "", "agents folder")
	fs.String("db", "", "SQLite trace database")
	return fs
}

// parseInterspersed parses flags found anywhere among args, as users type
// `agentry run AGENT TASK --json`, and returns the positional arguments in order.
// A lone "--" ends flag parsing.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// isFlagSet reports whether the user gave the named flag on the command line.
func isFlagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// usageError prints a usage problem and returns exit code 2.
func (s *session) usageError(fs *flag.FlagSet, format string, a ...any) int {
	fmt.Fprintf(s.stderr, "%s: %s\n", fs.Name(), fmt.Sprintf(format, a...))
	fs.Usage()
	return 2
}

// badConfig prints a configuration error and returns exit code 2, so a script
// can tell a broken configuration from a command that found problems (1).
func (s *session) badConfig(err error) int {
	fmt.Fprintf(s.stderr, "agentry: %s\n", strings.TrimSpace(err.Error()))
	return 2
}

// fail prints an error and returns exit code 1.
func (s *session) fail(err error) int {
	fmt.Fprintf(s.stderr, "agentry: %s\n", strings.TrimSpace(err.Error()))
	return 1
}
