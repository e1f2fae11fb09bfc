// Command agentry runs, edits and traces LLM agents written as Markdown files.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
	"github.com/agentry/agentry/trace"
)

// command is one subcommand. run returns the process exit code.
type command struct {
	name string
	run  func(ctx context.Context, s *session, args []string) int
}

// commands is the whole CLI; only subcommands that work are listed.
var commands = []command{
	{"validate", validateCommand},
	{"permissions", permissionsCommand},
	{"serve", serveCommand},
	{"traces", tracesCommand},
	{"run", runCommand},
	{"chat", chatCommand},
	{"workflow", workflowCommand},
	{"worker", workerCommand},
	{"approvals", approvalsCommand},
	{"skills", skillsCommand},
	{"plugins", pluginsCommand},
}

// commandDocs are each command's arguments and what it does, for the usage
// texts. They live apart from commands, whose functions print them (an
// initialization cycle otherwise).
var commandDocs = map[string]struct{ args, summary string }{
	"validate":    {"", "check the agent files and report problems"},
	"permissions": {"AGENT [--via PARENT,...]", "show an agent's effective tools and sub-agents, with reasons"},
	"serve":       {"", "serve the web UI: edit agents, start runs, watch timelines"},
	"traces":      {"[list | show RUN_ID | export RUN_ID | import FILE]", "list, show, export and import run traces"},
	"run":         {"AGENT TASK", "run an agent on a task, streaming progress and writing its trace"},
	"worker":      {"", "serve runs from Temporal's task queue (engine: temporal)"},
	"chat":        {"AGENT", "talk with an agent in the terminal: each line a follow-up run of one conversation"},
	"workflow":    {"[run NAME|FILE | validate [PATH] | explain NAME | new \"DESCRIPTION\"]", "run, explain, validate or write YAML workflows of agents"},
	"approvals":   {"[list | approve ID | deny ID --reason TEXT]", "list and answer the calls that wait for a person's approval"},
	"skills":      {"list", "list the Agent Skills agents may be given, with the plugin each comes from"},
	"plugins":     {"[add PATH|GIT-URL [--plugin NAME] | list | remove NAME | update [NAME] | show NAME | enable NAME | disable NAME]", "install Claude Code plugins and marketplaces, and enable their hooks and MCP servers"},
}

// session is what a command may touch of the process: its streams and environment.
// Tests build one with buffers and a fake environment.
type session struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	env            func() []string // the whole environment, for AGENTRY_* configuration
	// lib is the skills and commands library openAgents opened beside the
	// agents (skills.go); newRuntime gives it to the runtime.
	lib *registry.Catalog
	// libFolders are the watched library roots by label (serve's skill
	// editor writes through them).
	libFolders map[string]*folder.Folder
}

func main() {
	s := &session{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, env: os.Environ}
	os.Exit(s.main(context.Background(), os.Args[1:]))
}

func (s *session) main(ctx context.Context, args []string) int {
	if len(args) == 0 {
		s.usage(s.stderr)
		return 2
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		if len(args) > 1 && args[0] == "help" { // agentry help run = agentry run --help
			return s.main(ctx, []string{args[1], "--help"})
		}
		s.usage(s.stdout)
		return 0
	case "--version", "-version", "version":
		fmt.Fprintln(s.stdout, versionLine(debug.ReadBuildInfo()))
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(ctx, s, args[1:])
		}
	}
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	fmt.Fprintf(s.stderr, "agentry: unknown command %q%s\n\n", args[0], didYouMean(args[0], names, ""))
	s.usage(s.stderr)
	return 2
}

func (s *session) usage(w io.Writer) {
	fmt.Fprintln(w, "usage: agentry COMMAND [flags]\n\ncommands:")
	sorted := append([]command(nil), commands...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].name < sorted[j].name })
	for _, c := range sorted {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, commandDocs[c.name].summary)
	}
	fmt.Fprintln(w, "\nRun 'agentry COMMAND --help' for a command's arguments and flags, 'agentry --version' for the version.")
}

// version is the release version `make build` stamps in with
// -ldflags "-X main.version=..."; empty in other builds.
var version string

// versionLine is what --version prints: the stamped version or else the
// module version, and the VCS commit the binary was built from, as far as
// the build recorded them (`go build` in a git checkout records the commit
// unless -buildvcs=false; `go install module@version` records the version).
func versionLine(info *debug.BuildInfo, ok bool) string {
	if !ok {
		return "agentry " + cmp.Or(version, "(no build information)")
	}
	line := "agentry " + cmp.Or(version, info.Main.Version, "(devel)")
	settings := map[string]string{}
	for _, kv := range info.Settings {
		settings[kv.Key] = kv.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		line += " commit " + rev
		if t := settings["vcs.time"]; t != "" {
			line += " (" + t + ")"
		}
		if settings["vcs.modified"] == "true" {
			line += " with uncommitted changes"
		}
	} else if version == "" { // a stamped version names its commit (git describe)
		line += " (no VCS commit recorded)"
	}
	return line + ", " + info.GoVersion
}

// flagSet returns a flag set for a subcommand with the flags every command
// shares. Errors and help are handled by parse, so a command can exit with
// code 2 for bad usage and 0 for --help.
func (s *session) flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("agentry "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.String("config", "", "configuration `FILE` (default agentry.yaml when present)")
	fs.String("agents", "", "the agents folder `DIR` (default agents)")
	fs.String("db", "", "the trace database: a SQLite file `PATH` (default agentry.db) or a postgres:// URL")
	return fs
}

// parse parses a command's arguments. When ok is false the command ends
// with code: 0 after --help (usage on stdout), 2 after a bad flag (the
// problem, a suggestion for a misspelt flag, and usage on stderr).
func (s *session) parse(fs *flag.FlagSet, args []string) (rest []string, code int, ok bool) {
	rest, err := parseInterspersed(fs, args)
	switch {
	case err == nil:
		return rest, 0, true
	case errors.Is(err, flag.ErrHelp):
		s.commandUsage(s.stdout, fs)
		return nil, 0, false
	}
	msg := err.Error()
	if name, found := strings.CutPrefix(msg, "flag provided but not defined: -"); found {
		var known []string
		fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
		msg = fmt.Sprintf("unknown flag --%s%s", name, didYouMean(name, known, "--"))
	} else if name, found := strings.CutPrefix(msg, "flag needs an argument: -"); found {
		msg = fmt.Sprintf("flag --%s needs a value", name)
	} else {
		msg = strings.Replace(msg, " for flag -", " for flag --", 1) // invalid value "x" for flag --limit: ...
	}
	fmt.Fprintf(s.stderr, "%s: %s\n\n", fs.Name(), msg)
	s.commandUsage(s.stderr, fs)
	return nil, 2, false
}

// commandUsage prints a command's usage line, what it does, and its flags.
func (s *session) commandUsage(w io.Writer, fs *flag.FlagSet) {
	name := strings.TrimPrefix(fs.Name(), "agentry ")
	doc := commandDocs[name]
	fmt.Fprintf(w, "usage: %s [flags]\n", strings.Join(strings.Fields(fs.Name()+" "+doc.args), " "))
	if doc.summary != "" {
		fmt.Fprintf(w, "\n%s\n", upperFirst(doc.summary))
	}
	fmt.Fprintln(w, "\nflags:")
	fs.VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		head := "  --" + f.Name
		if value != "" {
			head += " " + strings.ToUpper(value)
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "0s" {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "%-24s %s\n", head, usage)
	})
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:] + "."
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

// usageError prints a usage problem and the command's usage, and returns exit code 2.
func (s *session) usageError(fs *flag.FlagSet, format string, a ...any) int {
	fmt.Fprintf(s.stderr, "%s: %s\n\n", fs.Name(), fmt.Sprintf(format, a...))
	s.commandUsage(s.stderr, fs)
	return 2
}

// badConfig prints a configuration error and returns exit code 2, so a script
// can tell a broken configuration from a command that found problems (1).
func (s *session) badConfig(err error) int {
	fmt.Fprintf(s.stderr, "agentry: %s\n", strings.TrimSpace(trace.Redact(err.Error())))
	return 2
}

// fail prints an error, secrets redacted, and returns exit code 1.
func (s *session) fail(err error) int {
	fmt.Fprintf(s.stderr, "agentry: %s\n", strings.TrimSpace(trace.Redact(err.Error())))
	return 1
}
