package agents

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/registry"
)

// AgentForm is the editor's fields as the form shows and posts them. Numbers
// and durations stay strings so a typo is shown back as typed, next to its
// problem, instead of being lost.
type AgentForm struct {
	Name, Description, Model string
	ToolsAny                 bool // no tools.allow: every tool allowed at this level
	ToolsAllow, ToolsDeny    []string
	AgentsAllow, AgentsDeny  []string
	Execution, Context       string
	MaxConcurrent            string
	Nested                   bool
	MaxTurns, Timeout        string
	RetryAttempts            string
	RetryBackoff             string
	Enabled                  bool
	Body                     string
}

// formFromAgent fills the form from what a file says, so an untouched form
// compares equal to it.
func formFromAgent(a registry.Agent, body string) AgentForm {
	return AgentForm{
		Name: a.Name, Description: a.Description, Model: a.Model,
		ToolsAny: a.Tools.Allow == nil, ToolsAllow: listOf(a.Tools.Allow), ToolsDeny: listOf(a.Tools.Deny),
		AgentsAllow: listOf(a.Subagents.Rules.Allow), AgentsDeny: listOf(a.Subagents.Rules.Deny),
		Execution: a.Subagents.Execution, Context: a.Subagents.Context,
		MaxConcurrent: intText(a.Subagents.MaxConcurrent), Nested: a.Subagents.Nested,
		MaxTurns: intText(a.MaxTurns), Timeout: durationText(a.Timeout),
		RetryAttempts: intText(a.Retry.MaxAttempts), RetryBackoff: a.Retry.Backoff,
		Enabled: a.Enabled, Body: body,
	}
}

// formFromDocument fills the form with what the file says. Scalars are the
// file's own text, not the decoded value: a file with "execution: paralel"
// or "max_turns: many" shows exactly that (marked invalid by validation),
// and a key the file does not set shows empty rather than its default. Since
// Save compares the posted form with this one, a field left as it was is
// never written, so no value the user did not enter reaches the file.
func formFromDocument(d *registry.Document) AgentForm {
	a, _ := d.Agent()
	f := formFromAgent(a, d.Body())
	raw := func(key string) string {
		v, ok := d.Get(key)
		if !ok || v == nil {
			return ""
		}
		switch v.(type) {
		case map[string]any, []any:
			return "" // not a scalar: validation says so; the raw view shows it
		}
		return fmt.Sprint(v)
	}
	f.Model = raw("model") // the name stays as decoded: VS Code files take it from the file name
	f.Execution, f.Context = raw("subagents.execution"), raw("subagents.context")
	f.MaxConcurrent, f.MaxTurns, f.Timeout = raw("subagents.max_concurrent"), raw("max_turns"), raw("timeout")
	f.RetryAttempts, f.RetryBackoff = raw("retry.max_attempts"), raw("retry.backoff")
	return f
}

// parseForm reads the posted editor fields.
func parseForm(v url.Values) AgentForm {
	return AgentForm{
		Name: strings.TrimSpace(v.Get("name")), Description: normalizeNewlines(v.Get("description")),
		Model:    strings.TrimSpace(v.Get("model")),
		ToolsAny: v.Get("tools.any") != "", ToolsAllow: listOf(v["tools.allow"]), ToolsDeny: listOf(v["tools.deny"]),
		AgentsAllow: listOf(v["subagents.allow"]), AgentsDeny: listOf(v["subagents.deny"]),
		Execution: v.Get("subagents.execution"), Context: v.Get("subagents.context"),
		MaxConcurrent: strings.TrimSpace(v.Get("subagents.max_concurrent")), Nested: v.Get("subagents.nested") != "",
		MaxTurns: strings.TrimSpace(v.Get("max_turns")), Timeout: strings.TrimSpace(v.Get("timeout")),
		RetryAttempts: strings.TrimSpace(v.Get("retry.max_attempts")), RetryBackoff: v.Get("retry.backoff"),
		Enabled: v.Get("enabled") != "", Body: strings.ReplaceAll(v.Get("body"), "\r\n", "\n"),
	}
}

// listOf trims and de-duplicates list values, keeping their order. Both the
// file's side and the posted side go through it, so a file whose aliases map
// to the same tool twice (Edit, MultiEdit) still compares equal.
func listOf(in []string) []string {
	out := []string{}
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// check finds problems the registry cannot see because the value never makes
// it into the file: a bad name or a number that is not a number.
func (f AgentForm) check() []ProblemView {
	var ps []ProblemView
	bad := func(field, msg string) {
		ps = append(ps, ProblemView{Severity: registry.SeverityError, Field: field, Message: msg})
	}
	if !registry.ValidName(f.Name) { // the id rule also keeps a file name inside the folder
		bad("name", "use 1–64 characters: "+nameChars)
	}
	for _, n := range []struct{ field, text string }{
		{"subagents.max_concurrent", f.MaxConcurrent}, {"max_turns", f.MaxTurns}, {"retry.max_attempts", f.RetryAttempts},
	} {
		if n.text == "" {
			continue
		}
		// The registry's words (registry/decode.go), so the form and the
		// agents list say the same about the same value.
		switch v, err := strconv.Atoi(n.text); {
		case err != nil:
			bad(n.field, fmt.Sprintf("%s must be a whole number, got %q", n.field, n.text))
		case v < 1:
			bad(n.field, fmt.Sprintf("%s must be at least 1, got %d", n.field, v))
		}
	}
	if f.Timeout != "" {
		if _, err := time.ParseDuration(f.Timeout); err != nil {
			bad("timeout", "enter a duration such as 90s or 2m")
		}
	}
	return ps
}

func intText(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// durationText writes 2m rather than 2m0s, as people write it in files.
func durationText(d time.Duration) string {
	if d == 0 {
		return ""
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
