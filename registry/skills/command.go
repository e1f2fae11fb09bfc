package skills

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/internal/files"
	"github.com/agentry/agentry/registry/yamlstruct"
	"go.yaml.in/yaml/v3"
)

// Command is a Claude Code slash command: a Markdown prompt, commands/NAME.md,
// with optional frontmatter (description, argument-hint, allowed-tools,
// model). agentry runs it as a task (agentry run --command NAME "args"):
// $ARGUMENTS and $1..$9 in the prompt take the arguments, and the run may
// use only the tools allowed-tools names. It is a value.
type Command struct {
	// ID names the command: its file name without .md, with a subfolder
	// joined by ":" as Claude Code does (frontend/build.md is
	// "frontend:build"); a plugin's command whose name another command has
	// too is "plugin.name" (Library).
	ID           string `json:"id"`
	Name         string `json:"name"`
	Description  string `json:"description,omitempty"`
	ArgumentHint string `json:"argument_hint,omitempty"`
	// Plugin is the installed plugin that ships the command, "" for a
	// project's own (.claude/commands).
	Plugin string `json:"plugin,omitempty"`
	Root   string `json:"root"`
	// File is the command's file, slash-separated, relative to its root.
	File string `json:"file"`
	// AllowedTools are the agentry tools allowed-tools names; nil when the
	// command names none (the run is then limited only by the global rules).
	AllowedTools []string `json:"allowed_tools,omitempty"`
	// Delegates is set when allowed-tools is absent or names Task or Agent:
	// the run may hand work to sub-agents, as Claude Code's main agent may.
	Delegates bool `json:"delegates"`
	// Model is model: as written ("" for the configured default).
	Model string `json:"model,omitempty"`
	// Prompt is the body, before the arguments are put in.
	Prompt string `json:"-"`
}

// ParseCommand reads a command file (slash path rel, relative to its
// commands folder) and returns the command and its problems. A file
// without frontmatter is a command too: its whole text is the prompt.
// Only a file that cannot be read as Markdown with YAML frontmatter, or
// an empty prompt, is an error.
func ParseCommand(rel string, data []byte) (Command, []registry.Problem) {
	c := Command{File: rel, Name: commandName(rel), Delegates: true}
	c.ID = c.Name
	d, err := registry.Parse(rel, data)
	if err != nil {
		p, ok := err.(registry.Problem)
		if !ok {
			p = registry.Problem{File: rel, Severity: registry.SeverityError, Message: err.Error()}
		}
		p.Agent = c.ID
		return c, []registry.Problem{p}
	}
	dc := d.Fields()
	for k, v := range dc.Pairs() {
		if yamlstruct.IsNull(v) {
			continue
		}
		switch k.Value {
		case "description":
			c.Description, _ = dc.Text(v, "description")
		case "argument-hint":
			c.ArgumentHint = argumentHint(dc, v)
		case "model":
			c.Model, _ = dc.Text(v, "model")
		case "allowed-tools":
			c.AllowedTools, c.Delegates = dc.AllowedTools(v, true)
		}
	}
	c.Prompt = strings.TrimSpace(strings.ReplaceAll(d.Body(), "\r\n", "\n"))
	if c.Prompt == "" {
		dc.Add(registry.SeverityError, 1, "body", "the command has no prompt")
	}
	if loc := bashLineRE.FindIndex(data); loc != nil {
		dc.Add(registry.SeverityWarning, 1+bytes.Count(data[:loc[0]], []byte("\n")), "body",
			fmt.Sprintf("%s is not run before the prompt is sent, as Claude Code runs it: agentry sends the prompt as written (the run may call it with shell.run)", data[loc[0]:loc[1]]))
	}
	probs := dc.Problems()
	for i := range probs {
		probs[i].Agent = c.ID
	}
	return c, probs
}

// argumentHint reads argument-hint, text shown beside the command's
// arguments. Claude Code's docs write it unquoted, argument-hint:
// [project-name], which YAML reads as a list: such a list of words is the
// hint as written, brackets and all, as Claude Code shows it. Anything else
// is a warning, not an error: the hint is only shown, and the command runs
// without it.
func argumentHint(dc *registry.Fields, v *yaml.Node) string {
	if v.Kind == yaml.ScalarNode {
		return v.Value
	}
	if v.Kind == yaml.SequenceNode && !slices.ContainsFunc(v.Content, func(n *yaml.Node) bool { return n.Kind != yaml.ScalarNode }) {
		words := make([]string, len(v.Content))
		for i, n := range v.Content {
			words[i] = n.Value
		}
		return "[" + strings.Join(words, ", ") + "]"
	}
	dc.Warnf(v, "argument-hint", "argument-hint must be text, got %s: the hint is not shown", yamlstruct.Describe(v))
	return ""
}

// commandName is the command's name from its file: the path without .md,
// subfolders joined by ":".
func commandName(rel string) string {
	return strings.ReplaceAll(strings.TrimSuffix(rel, ".md"), "/", ":")
}

// bashLineRE finds Claude Code's !`command` in a command's prompt, a shell
// command whose output Claude Code puts in before sending it.
var bashLineRE = regexp.MustCompile("!`[^`\n]+`")

// argRE finds $ARGUMENTS, $ARGUMENTS[N] and $1..$9 in a prompt.
var argRE = regexp.MustCompile(`\$ARGUMENTS(\[\d+\])?|\$[1-9]`)

// Expand puts args into the prompt as Claude Code does: $ARGUMENTS is the
// whole argument text, $1..$9 and $ARGUMENTS[N] (counted from 0) its
// whitespace-separated words. A prompt that takes no arguments gets them
// appended after a blank line, so nothing the person typed is lost.
func (c Command) Expand(args string) string {
	args = strings.TrimSpace(args)
	words := strings.Fields(args)
	word := func(i int) string {
		if i >= 0 && i < len(words) {
			return words[i]
		}
		return ""
	}
	used := false
	out := argRE.ReplaceAllStringFunc(c.Prompt, func(m string) string {
		used = true
		switch {
		case m == "$ARGUMENTS":
			return args
		case strings.HasPrefix(m, "$ARGUMENTS["):
			n, _ := strconv.Atoi(m[len("$ARGUMENTS[") : len(m)-1])
			return word(n)
		}
		n, _ := strconv.Atoi(m[1:])
		return word(n - 1)
	})
	if !used && args != "" {
		out += "\n\n" + args
	}
	return out
}

// IsCommandFile reports whether a slash path relative to a commands folder
// names a command: a *.md file, in the folder or a plain subfolder.
func IsCommandFile(rel string) bool {
	return strings.HasSuffix(rel, ".md") && len(path.Base(rel)) > 3 && files.Plain(rel)
}

// CommandPrompt is the system prompt of a command's run; the command's
// own text is the task, as Claude Code sends a slash command's prompt as
// the user's message.
const CommandPrompt = "You carry out a task a person started with a slash command. " +
	"Use the tools you have; where the task names sub-agents, hand them their part with the delegate tool."

// Agent is the agent a run of the command is: named "/ID" (no agent file
// can have that id), with the command's model, only the tools
// allowed-tools names (every tool the global rules allow when it names
// none), and any sub-agent when it may delegate, as Claude Code's main
// agent may.
func (c Command) Agent() registry.Agent {
	a := registry.Agent{
		Name: "/" + c.ID, Description: c.Description, Enabled: true, Prompt: CommandPrompt,
		Subagents: registry.Subagents{Execution: registry.Parallel, MaxConcurrent: registry.DefaultMaxConcurrent, Context: registry.ContextTaskOnly},
		Retry:     registry.Retry{MaxAttempts: registry.DefaultMaxAttempts, Backoff: registry.DefaultBackoff},
		Tools:     permissions.Rules{Allow: c.AllowedTools},
		File:      c.File,
	}
	if c.Model != "" {
		a.Model, a.Models = c.Model, []string{c.Model}
	}
	if c.Delegates {
		a.Subagents.Rules.Allow = []string{"*"}
	} else {
		a.Subagents.Rules.Allow = []string{}
	}
	return a
}
