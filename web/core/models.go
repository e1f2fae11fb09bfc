package core

import (
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentry/agentry/delegation/model/script"
)

// ModelChoice is one entry of a start form's model picker; Value "" (OwnModel)
// means each agent's own model.
type ModelChoice struct{ Value, Label string }

// OwnModel is the picker's value for "each agent uses the model its file names".
const OwnModel = ""

// Models is what the start forms (a run, a workflow run) may offer: one list
// and one check, so no form accepts a model another refuses.
type Models struct {
	Configured []string // the configured model names and aliases
	Default    string   // the configured default, marked in the picker
	// ScriptDir is the only folder script:NAME models may come from; ""
	// turns script models off.
	ScriptDir string
}

// ModelChoices are the models a form offers: each agent's own, the
// configured default, the other configured models and aliases, and the
// scripts of ScriptDir when it is set.
func (m Models) ModelChoices() []ModelChoice {
	out := []ModelChoice{{OwnModel, "each agent's own model"}}
	names := append([]string{m.Default}, m.Configured...)
	slices.Sort(names)
	for _, n := range slices.Compact(names) {
		if n == "" || n == "inherit" {
			continue
		}
		label := n
		if n == m.Default {
			label += " (default)"
		}
		out = append(out, ModelChoice{n, label})
	}
	for _, s := range script.List(m.ScriptDir) {
		out = append(out, ModelChoice{"script:" + s, "script:" + s})
	}
	return out
}

// CheckModel says what is wrong with a submitted model, "" when offered
// has it. A script: name is always checked against the scripts folder
// (confined, size-limited), so a script added after the page loaded still
// runs and one that changed since is refused. Messages never repeat the
// underlying error.
func (m Models) CheckModel(offered []ModelChoice, spec string) string {
	name, isScript := strings.CutPrefix(spec, "script:")
	if !isScript {
		if slices.ContainsFunc(offered, func(c ModelChoice) bool { return c.Value == spec }) {
			return ""
		}
		return "“" + Shorten(spec) + "” is not one of this server's models; pick one from the list."
	}
	if _, err := script.ReadIn(m.ScriptDir, name); err != nil {
		if errors.Is(err, script.ErrScriptsOff) {
			return "Script models are off in this server (set serve.script_dir in agentry.yaml to allow them)."
		}
		return "There is no script named “" + Shorten(name) + "” in the scripts folder (or it is too big, or leads out of it)."
	}
	return ""
}

// maxShown bounds how much of a submitted value a message repeats.
const maxShown = 60

// Shorten cuts a submitted value for a message, so a huge value is not
// echoed back whole.
func Shorten(s string) string {
	if utf8.RuneCountInString(s) <= maxShown {
		return s
	}
	return string([]rune(s)[:maxShown]) + "…"
}

// maxFirstLine bounds FirstLine.
const maxFirstLine = 300

// FirstLine is what a page or an API error says about an error from the
// runtime: its first line, shortened. The full error goes to the log.
func FirstLine(err error) string { return firstLine(err.Error()) }

func firstLine(msg string) string {
	msg, _, _ = strings.Cut(msg, "\n")
	if utf8.RuneCountInString(msg) > maxFirstLine {
		msg = string([]rune(msg)[:maxFirstLine]) + "…"
	}
	return msg
}
