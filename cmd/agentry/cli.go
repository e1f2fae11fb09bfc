package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/cmd/agentry/suggest"
	"github.com/agentry/agentry/registry/folder"
	"github.com/agentry/agentry/registry/skills"
	"github.com/agentry/agentry/trace"
)

// The CLI is a cobra command tree built anew for each session, one command
// per file; root.go's commands lists the whole tree in one place.
// Commands return errors and never print them: main prints each once,
// secrets redacted, and picks the exit code (DESIGN §8): 0 done, 1 failed
// or found problems, 2 bad usage or a bad configuration.

// session is what a command may touch of the process: its streams and environment.
// Tests build one with buffers and a fake environment.
type session struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	env            func() []string // the whole environment, for AGENTRY_* configuration
	// lib is the skills and commands library openAgents opened beside the
	// agents (skills.go); newRuntime gives it to the runtime.
	lib *skills.Catalog
	// libFolders are the watched library roots by label (serve's skill
	// editor writes through them).
	libFolders map[string]*folder.Folder
}

// main runs the command line args and returns the exit code.
func (s *session) main(ctx context.Context, args []string) int {
	root := s.rootCommand()
	root.SetArgs(args)
	root.SetIn(s.stdin)
	root.SetOut(s.stdout)
	root.SetErr(s.stderr)
	return s.exit(root.ExecuteContext(ctx))
}

// parent adds subs under cmd, which then runs only through them.
func parent(cmd *cobra.Command, subs ...*cobra.Command) *cobra.Command {
	cmd.AddCommand(subs...)
	asParent(cmd)
	return cmd
}

// group is a command whose subcommands do the work: its usage and
// short help, and the configuration flags its subcommands share.
func group(use, short string, configFlags ...string) *cobra.Command {
	cmd := &cobra.Command{Use: use, Short: short}
	addConfigFlags(cmd.PersistentFlags(), configFlags...)
	return cmd
}

// asParent makes a command with subcommands, run without one, print its
// usage and exit 2 (unless it has a run of its own), and name the nearest
// subcommand for an unknown one.
func asParent(cmd *cobra.Command) {
	if cmd.HasSubCommands() && cmd.RunE == nil && cmd.Run == nil {
		cmd.RunE = func(cmd *cobra.Command, args []string) error { return usage(cmd, "") }
	}
	if cmd.HasSubCommands() && cmd.Args == nil {
		cmd.Args = unknownCommand
	}
}

// unknownCommand refuses an argument where a subcommand belongs, naming
// the nearest; cobra's own check covers the root command only.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	kind := "command"
	if cmd.HasParent() {
		kind = "subcommand"
	}
	return usage(cmd, "unknown %s %q%s", kind, args[0], suggest.DidYouMean(args[0], names, ""))
}

// Errors that pick an exit code other than 1.
type (
	// usageError is bad usage: the command's usage follows the message, exit 2.
	usageError struct {
		cmd *cobra.Command
		msg string
	}
	// configError is a configuration no command can use: exit 2, so a
	// script can tell it from a command that found problems (1).
	configError struct{ err error }
	// exitCode ends the command with its code and nothing more to print:
	// it printed what it had to (a run's result, validate's problems).
	exitCode int
)

func (e *usageError) Error() string { return e.msg }
func (e configError) Error() string { return e.err.Error() }
func (e configError) Unwrap() error { return e.err }
func (e exitCode) Error() string    { return fmt.Sprintf("exit status %d", int(e)) }

func usage(cmd *cobra.Command, format string, a ...any) error {
	return &usageError{cmd: cmd, msg: fmt.Sprintf(format, a...)}
}

// noArgs refuses arguments to a command that takes none.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usage(cmd, "%s takes no arguments, got %q", commandName(cmd), strings.Join(args, " "))
	}
	return nil
}

// oneArg is the Args of a command that takes one argument: without it, or
// with more, says is what the usage error says after the command's name.
func oneArg(says string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usage(cmd, "%s %s", commandName(cmd), says)
		}
		return nil
	}
}

// commandName is cmd's path without "agentry ": "traces list".
func commandName(cmd *cobra.Command) string {
	return strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
}

// writeJSON writes v indented, as every --json output but run's is.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// jsonFlag declares --json in fs, into asJSON for a command that keeps
// it, else read by jsonOrText: one flag name for every command that
// prints a DESIGN §8 contract.
func jsonFlag(fs *pflag.FlagSet, asJSON *bool, usage string) {
	if asJSON == nil {
		asJSON = new(bool)
	}
	fs.BoolVar(asJSON, "json", false, usage)
}

// modelFlag declares --model in fs, into spec: the model every agent of
// what the command runs (a run, a conversation, a workflow) uses
// instead of its own, which checkModel vets before anything runs.
func modelFlag(fs *pflag.FlagSet, spec *string, of string) {
	fs.StringVar(spec, "model", "", "the model `SPEC` for every agent of the "+of+": demo, script:FILE, provider:model, an alias or a model name")
}

// jsonOrText prints v as JSON when cmd's --json was given, else calls text.
func (s *session) jsonOrText(cmd *cobra.Command, v any, text func()) error {
	if asJSON, _ := cmd.Flags().GetBool("json"); asJSON {
		return writeJSON(s.stdout, v)
	}
	text()
	return nil
}

// orEmpty is list, or an empty list where it is nil: --json prints [], never null.
func orEmpty[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}

// exit prints err as its kind asks and returns the exit code.
func (s *session) exit(err error) int {
	var ue *usageError
	var ce configError
	var code exitCode
	switch {
	case err == nil:
		return 0
	case errors.As(err, &code):
		return int(code)
	case errors.As(err, &ue):
		if ue.msg != "" {
			fmt.Fprintf(s.stderr, "%s: %s\n\n", ue.cmd.CommandPath(), ue.msg)
		}
		fmt.Fprint(s.stderr, ue.cmd.UsageString())
		return 2
	case errors.As(err, &ce):
		fmt.Fprintf(s.stderr, "agentry: %s\n", strings.TrimSpace(trace.Redact(err.Error())))
		return 2
	}
	fmt.Fprintf(s.stderr, "agentry: %s\n", strings.TrimSpace(trace.Redact(err.Error())))
	return 1
}

// flagError words pflag's errors as the rest of agentry does, with the
// nearest flag for a misspelt one.
func flagError(cmd *cobra.Command, err error) error {
	var notExist *pflag.NotExistError
	var noValue *pflag.ValueRequiredError
	var invalid *pflag.InvalidValueError
	var known []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) { known = append(known, f.Name) })
	switch {
	case errors.As(err, &notExist) && notExist.GetSpecifiedShortnames() != "":
		// -json is read as the short flags -j -s -o -n: name the word, and
		// the long flag it was likely meant to be.
		word := notExist.GetSpecifiedShortnames()
		hint := suggest.DidYouMean(word, known, "--")
		if slices.Contains(known, word) {
			hint = "; did you mean --" + word + "?"
		}
		return usage(cmd, "unknown flag -%s%s", word, hint)
	case errors.As(err, &notExist):
		name := notExist.GetSpecifiedName()
		return usage(cmd, "unknown flag --%s%s", name, suggest.DidYouMean(name, known, "--"))
	case errors.As(err, &noValue):
		return usage(cmd, "flag --%s needs a value", noValue.GetFlag().Name)
	case errors.As(err, &invalid):
		return usage(cmd, "invalid value %q for flag --%s: want %s", invalid.GetValue(), invalid.GetFlag().Name, flagWants(invalid.GetFlag()))
	}
	return usage(cmd, "%s", err)
}

// flagWants names what a flag takes, in a user's words, as the
// configuration's errors do: pflag names its types as Go does but for
// durations and lists.
func flagWants(f *pflag.Flag) string {
	t := f.Value.Type()
	switch {
	case t == "duration":
		t = "time.Duration"
	case strings.HasSuffix(t, "Slice"), strings.HasSuffix(t, "Array"):
		t = "[]" + strings.TrimSuffix(strings.TrimSuffix(t, "Slice"), "Array")
	}
	return config.Wants(t)
}

// usageTemplate is every command's --help, in agentry's words: the usage
// line, what the command does, its subcommands and its flags.
const usageTemplate = `usage: {{.UseLine}}{{if .Long}}

{{.Long}}{{else if .Short}}

{{upperFirst .Short}}.{{end}}{{if .HasAvailableSubCommands}}

commands:{{range .Commands}}{{if .IsAvailableCommand}}
  {{rpad .Name 12}} {{.Short}}{{end}}{{end}}{{end}}{{if .HasExample}}

examples:
{{.Example}}{{end}}{{if .HasAvailableLocalFlags}}

flags:
{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableInheritedFlags}}

inherited flags:
{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableSubCommands}}

Run '{{.CommandPath}} COMMAND --help' for a command's arguments and flags.{{end}}
`

func init() {
	cobra.AddTemplateFunc("upperFirst", func(s string) string {
		if s == "" {
			return s
		}
		return strings.ToUpper(s[:1]) + s[1:]
	})
}

// names completes a word from the names list gives for the command.
func names(list func(*cobra.Command) ([]string, error)) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		all, err := list(cmd)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		out := slices.DeleteFunc(slices.Clone(all), func(n string) bool { return !strings.HasPrefix(n, toComplete) })
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// firstArg is names for a command's first argument: nothing is offered
// after it.
func firstArg(list func(*cobra.Command) ([]string, error)) cobra.CompletionFunc {
	complete := names(list)
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return complete(cmd, args, toComplete)
	}
}
