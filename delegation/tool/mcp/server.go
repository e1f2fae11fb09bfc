package mcp

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
)

// Server is one MCP server to start: Command with Args, run with the
// process's environment plus Env.
type Server struct {
	// Name is the tool group the server's tools join; [a-z0-9][a-z0-9_-]*.
	Name string
	// Command is the program to run (looked up on PATH when it has no slash).
	Command string
	// Args are passed to Command.
	Args []string
	// Env is added to the inherited environment, overriding same-named variables.
	Env map[string]string
}

// Errors callers branch on.
var (
	// ErrInvalidServer is returned for a Server whose name or command cannot work.
	ErrInvalidServer = errors.New("invalid mcp server")
	// ErrToolFailed wraps the text of a result the server marked isError.
	ErrToolFailed = errors.New("tool reported an error")
	// ErrPanic marks a call that panicked (in the SDK or on the server's
	// answer); the panic value follows it in the message.
	ErrPanic = errors.New("mcp call panicked")
)

var serverName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// Validate reports why s cannot be started, or nil.
func (s Server) Validate() error {
	if !serverName.MatchString(s.Name) {
		return fmt.Errorf("%w: name %q must match [a-z0-9][a-z0-9_-]* (it becomes the tool group)", ErrInvalidServer, s.Name)
	}
	if strings.TrimSpace(s.Command) == "" {
		return fmt.Errorf("%w %q: command is empty", ErrInvalidServer, s.Name)
	}
	return nil
}

// toolNameProblem says why a listed tool cannot become "<server>.<tool>",
// or "" when it can. MCP allows dots in tool names, but "srv.a.b" would read
// as a nested group to permission patterns ("srv.a" would match it).
func toolNameProblem(name string) string {
	switch {
	case name == "":
		return "a tool has no name"
	case strings.Contains(name, "."):
		return fmt.Sprintf("tool %q has a dot in its name, which would read as a nested tool group", name)
	case strings.ContainsAny(name, " \t\n*?"):
		return fmt.Sprintf("tool %q has spaces or glob characters in its name", name)
	}
	return ""
}

// command builds the process for s. It is not tied to a context: the server
// lives until Close, not until the connect deadline.
func (s Server) command() *exec.Cmd {
	cmd := exec.Command(s.Command, s.Args...)
	if len(s.Env) > 0 {
		env := os.Environ()
		for _, k := range slices.Sorted(maps.Keys(s.Env)) {
			env = append(env, k+"="+s.Env[k]) // later entries win in exec
		}
		cmd.Env = env
	}
	return cmd
}

// describe names s for error messages: the server and the command line.
func (s Server) describe() string {
	return fmt.Sprintf("mcp server %q (command %q)", s.Name, strings.Join(append([]string{s.Command}, s.Args...), " "))
}
