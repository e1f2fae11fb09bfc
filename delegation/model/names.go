package model

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/agentry/agentry/registry"
)

// ErrUnknownName is returned by Resolve for a name that no rule
// resolves.
var ErrUnknownName = errors.New("not a configured alias, a Claude Code alias, a known model id or display name, or provider:model")

// claudeCodeAliases are the names Claude Code's model setting takes
// (code.claude.com/docs/en/model-config, November 2026), mapped to the model
// each names on Anthropic's API. agentry has no plan mode, so opusplan is
// the model that executes (sonnet), and the 1M-context variants are their
// model: the context window is a request option agentry does not send.
// "inherit" and "default" are not here: they mean the parent's model.
var claudeCodeAliases = map[string]string{
	"sonnet":     "anthropic:claude-sonnet-4-6",
	"opus":       "anthropic:claude-opus-4-8",
	"haiku":      "anthropic:claude-haiku-4-5",
	"best":       "anthropic:claude-opus-4-8",
	"opusplan":   "anthropic:claude-sonnet-4-6",
	"sonnet[1m]": "anthropic:claude-sonnet-4-6",
	"opus[1m]":   "anthropic:claude-opus-4-8",
	"fable":      "anthropic:claude-fable-5-2",
	"fable[1m]":  "anthropic:claude-fable-5-2",
}

// copilotNames are VS Code's model display names as github/awesome-copilot
// agent files write them, with or without the " (copilot)" suffix,
// lowercased. Names of the plain "Claude <family> <version>" and "GPT-..."
// shapes that are not listed are mapped by rule (displayName).
var copilotNames = map[string]string{
	"claude sonnet 3.5":          "anthropic:claude-3-5-sonnet-latest",
	"claude sonnet 3.7":          "anthropic:claude-3-7-sonnet-latest",
	"claude sonnet 3.7 thinking": "anthropic:claude-3-7-sonnet-latest",
	"claude sonnet 4":            "anthropic:claude-sonnet-4-0",
	"claude opus 4":              "anthropic:claude-opus-4-0",
	"claude opus 4.1":            "anthropic:claude-opus-4-1",
	"gpt-4.1":                    "openai:gpt-4.1",
	"gpt-4o":                     "openai:gpt-4o",
	"gpt-5":                      "openai:gpt-5",
	"gpt-5 mini":                 "openai:gpt-5-mini",
	"gpt-5-codex":                "openai:gpt-5-codex",
	"gpt-5.3-codex":              "openai:gpt-5.3-codex",
	"o3-mini":                    "openai:o3-mini",
	"o4-mini":                    "openai:o4-mini",
}

var (
	oSeries     = regexp.MustCompile(`^o[134](-|$)`)
	claudeMajor = regexp.MustCompile(`^claude-(sonnet|opus|haiku)-\d+$`)
	claude3     = regexp.MustCompile(`^claude-3-\d-(sonnet|haiku|opus)$`)
	claudeShape = regexp.MustCompile(`^claude (sonnet|opus|haiku|fable) (\d+(?:\.\d+)?)$`)
	gptShape    = regexp.MustCompile(`^gpt-[0-9][0-9a-z.]*( [a-z0-9]+)*$`)
)

// Resolve maps one model name as an agent file, a flag or the
// configuration writes it to a "provider:model" spec, trying in order: an
// alias from the configuration; Claude Code's aliases; a full model id by
// its prefix (claude-* is anthropic; gpt-*, o1*, o3*, o4* are openai); VS
// Code's display names ("Claude Sonnet 4.5 (copilot)"); provider:model or a
// bare provider ("demo"). It does not check that the provider can be used
// here: building the model does (Providers.Resolve).
func Resolve(name string, aliases map[string]string, providers Providers) (string, error) {
	name = strings.TrimSpace(name)
	if spec, ok := alias(name, aliases); ok {
		return spec, nil
	}
	if spec, ok := claudeCodeAliases[name]; ok {
		return spec, nil
	}
	if spec, ok := byPrefix(name); ok {
		return spec, nil
	}
	if spec, ok := displayName(name); ok {
		return spec, nil
	}
	if strings.Contains(name, ":") {
		return name, nil // an unknown provider is Providers.Resolve's error
	}
	if _, ok := providers[name]; ok {
		return name, nil
	}
	return "", fmt.Errorf("model %q: %w", name, ErrUnknownName)
}

// alias looks name up among the configured aliases, exactly and then
// ignoring case: AGENTRY_MODELS__ALIASES__* variables arrive lowercased,
// while files write display names as "Claude Sonnet 4.5".
func alias(name string, aliases map[string]string) (string, bool) {
	if spec, ok := aliases[name]; ok {
		return spec, true
	}
	for k, spec := range aliases {
		if strings.EqualFold(k, name) {
			return spec, true
		}
	}
	return "", false
}

// byPrefix infers the provider of a full model id. Anthropic's ids spell
// versions with hyphens; ids written with dots ("claude-sonnet-4.5", as VS
// Code files do) are respelled, and the short forms files use for a model
// family ("claude-sonnet-4", "claude-3.5-sonnet") become the API's aliases.
func byPrefix(name string) (string, bool) {
	switch {
	case strings.HasPrefix(name, "claude-"):
		id := strings.ReplaceAll(name, ".", "-")
		switch {
		case claudeMajor.MatchString(id): // claude-sonnet-4: the API's alias is claude-sonnet-4-0
			id += "-0"
		case claude3.MatchString(id): // claude-3-5-sonnet: the API's alias ends in -latest
			id += "-latest"
		}
		return "anthropic:" + id, true
	case strings.HasPrefix(name, "gpt-"), oSeries.MatchString(name):
		return "openai:" + name, true
	}
	return "", false
}

// displayName maps VS Code's model picker names, case-insensitively, with
// or without their " (copilot)" suffix.
func displayName(name string) (string, bool) {
	n := strings.ToLower(strings.Join(strings.Fields(name), " "))
	n = strings.TrimSpace(strings.TrimSuffix(n, "(copilot)"))
	if spec, ok := copilotNames[n]; ok {
		return spec, true
	}
	if m := claudeShape.FindStringSubmatch(n); m != nil {
		return "anthropic:claude-" + m[1] + "-" + strings.ReplaceAll(m[2], ".", "-"), true
	}
	if gptShape.MatchString(n) {
		return "openai:" + strings.ReplaceAll(n, " ", "-"), true
	}
	return "", false
}

// Names are the model names an agent's file writes, in the order to
// try them (VS Code's prioritized list); nil when it names none (the
// default applies). Agents built in code may set only Model.
func Names(a *registry.Agent) []string {
	var out []string
	for _, m := range a.Models {
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, m)
		}
	}
	if len(out) == 0 && strings.TrimSpace(a.Model) != "" {
		out = []string{strings.TrimSpace(a.Model)}
	}
	return out
}

// IsInherit reports the names that mean "the parent's model": Claude Code's
// inherit, and its default (the model the session would use anyway).
func IsInherit(name string) bool { return name == "inherit" || name == "default" }

// Check resolves an agent file's model names as a run would, without
// running: spec is the first name that resolves to a model this machine can
// build, or "" with one reason per name when none does (the run then falls
// back to the default). A file that names no model, or inherits, checks fine.
func Check(names []string, aliases map[string]string, providers Providers) (spec string, reasons []string) {
	for _, name := range names {
		if IsInherit(name) {
			return name, nil
		}
		s, err := Resolve(name, aliases, providers)
		if err == nil {
			if _, err = providers.Resolve(s, nil); err == nil {
				return s, nil
			}
			err = Named(name, s, err)
		}
		reasons = append(reasons, err.Error())
	}
	return "", reasons
}

// Named puts the model as the file or flag wrote it, and the spec it
// resolved to, in front of a provider's error: `model "sonnet"
// (anthropic:claude-sonnet-4-6): anthropic: no API key ...`. Providers'
// unknown-provider error names the spec already.
func Named(name, spec string, err error) error {
	switch {
	case errors.Is(err, ErrUnknownProvider) && name == spec:
		return err
	case errors.Is(err, ErrUnknownProvider):
		provider, _, _ := strings.Cut(spec, ":")
		return fmt.Errorf("model %q (%s): %w %q", name, spec, ErrUnknownProvider, provider)
	case name == spec:
		return fmt.Errorf("model %q: %w", name, err)
	}
	return fmt.Errorf("model %q (%s): %w", name, spec, err)
}

// Problems are warnings, one per agent, about files whose models
// cannot be used on this machine: none of the names resolves to a provider
// that can be built here, so the agent will run on defaultModel. Each names
// the file, the line of model:, every name and what it lacks. validate
// prints them; the web's agent pages can show them beside the registry's
// own problems.
func Problems(agents []registry.Agent, aliases map[string]string, defaultModel string, providers Providers) []registry.Problem {
	var out []registry.Problem
	for _, a := range agents {
		spec, reasons := Check(Names(&a), aliases, providers)
		if spec != "" || len(reasons) == 0 {
			continue
		}
		out = append(out, registry.Problem{File: a.File, Agent: a.Name, Severity: registry.SeverityWarning,
			Line: a.ModelLine, Field: "model",
			Message: fmt.Sprintf("%s; runs on the default model %q instead", strings.Join(reasons, "; "), defaultModel)})
	}
	return out
}
