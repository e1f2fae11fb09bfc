package agents

import (
	"cmp"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"github.com/agentry/agentry/registry"
)

// EditorView is the agent editor page, shaped like the screen.
type EditorView struct {
	New    bool
	Href   string // the agent's page, "" when new
	Action string // where the form posts
	Path   string // file path inside the agents folder
	Hash   string // hash of the file the form was filled from ("" when new)
	// Name is the agent's name as the file on disk gives it; "" when the
	// file is too broken to fill the form, which then opens in the raw
	// view. Not Form.Name: a refused save shows what was typed in the
	// form (an empty name, another agent's), and the page must stay this
	// file's, its title, Run and History this agent's.
	Name     string
	Form     AgentForm
	Problems []ProblemView // shown beside the form's fields
	Preview  templ.Component
	Raw      string
	// RawProblems mark the raw file's lines: the file's own problems, or
	// those of the text a refused raw save submitted.
	RawProblems []ProblemView
	// Refused are the errors that kept the last save from being written
	// (the banner's "Not saved"); RawRefused says the raw file view was
	// saved, so the form still shows the file on disk.
	Refused    []ProblemView
	RawRefused bool
	Conflict   *ConflictView
	// RenameTo is the name a refused rename asked for, and RenameRefused
	// why it was refused: the Rename form opens again with both.
	RenameTo, RenameRefused string
	Saved                   bool
	Runnable                bool // the file's agent is served, so it can be started
	// Display is the file's name: when it is not the id ("Fancy Planner"
	// in a VS Code file), shown beside the id as in the agents list.
	Display string
	// Picker suggestions: only names that exist, plus what the user types.
	Tools, Agents, Models []string
}

// ConflictView shows both versions when the file changed under the editor.
type ConflictView struct {
	Yours, OnDisk string
}

// DeleteView is the delete confirmation page.
type DeleteView struct {
	Name, Path, Hash, Href string
}

// ProblemView is one validation finding as the pages show it.
type ProblemView struct {
	Severity, Field, Message string
	Line                     int
}

// Text is the problem as one line: "line 3: unknown agent …".
func (p ProblemView) Text() string {
	if p.Line > 0 {
		return "line " + strconv.Itoa(p.Line) + ": " + p.Message
	}
	return p.Message
}

func problemViews(ps []registry.Problem) []ProblemView {
	out := make([]ProblemView, len(ps))
	for i, p := range ps {
		out[i] = ProblemView{Severity: p.Severity, Field: p.Field, Message: p.Message, Line: p.Line}
	}
	return out
}

// formFields are the keys the form shows problems next to; problems about
// any other key are listed at the top of the page.
var formFields = []string{
	"name", "description", "model", "enabled", "tools.allow", "tools.deny", "subagents.allow", "subagents.deny",
	"subagents.execution", "subagents.context", "subagents.max_concurrent", "subagents.nested",
	"max_turns", "timeout", "retry.max_attempts", "retry.backoff", "body",
}

// FieldProblems returns the problems shown next to a field; "" gives those
// that belong to no field of the form.
func (v EditorView) FieldProblems(field string) []ProblemView {
	var out []ProblemView
	for _, p := range v.Problems {
		f := fieldOf(p.Field)
		if field == "" && !slices.Contains(formFields, f) || field != "" && f == field {
			out = append(out, p)
		}
	}
	return out
}

// HasError reports whether a field has an error (not only warnings).
func (v EditorView) HasError(field string) bool {
	for _, p := range v.FieldProblems(field) {
		if p.Severity == registry.SeverityError {
			return true
		}
	}
	return false
}

// fieldOf maps the registry's Field spellings onto form fields: Claude Code
// and VS Code keys, and "tools"/"subagents" meaning their allow list.
func fieldOf(f string) string {
	switch f {
	case "tools", "tools.allow":
		return "tools.allow"
	case "disallowedTools":
		return "tools.deny"
	case "agents", "subagents":
		return "subagents.allow"
	case "retry":
		return "retry.max_attempts"
	}
	return f
}

func hasErrors(ps []ProblemView) bool {
	return slices.ContainsFunc(ps, func(p ProblemView) bool { return p.Severity == registry.SeverityError })
}

func boolText(b bool) string { return strconv.FormatBool(b) }

// Options of the editor's select fields, in the order they are offered.
var (
	executionOptions = []string{registry.Parallel, registry.ParallelStreaming, registry.Sequential}
	contextOptions   = []string{registry.ContextTaskOnly, registry.ContextSummary, registry.ContextFull}
	backoffOptions   = registry.Backoffs
)

// RunHref links to the start form with this agent chosen; "" when the file
// names no agent that can run.
func (v EditorView) RunHref() string {
	if v.New || v.Name == "" || !v.Runnable {
		return ""
	}
	return "/runs/new?agent=" + url.QueryEscape(v.Name)
}

// HistoryHref is the agent's History page (web/history), "" for a new
// agent or a file too broken to name one.
func (v EditorView) HistoryHref() string {
	if v.New || v.Name == "" {
		return ""
	}
	return "/agents/" + url.PathEscape(v.Name) + "/history"
}

// RawLines is the raw file split into lines, for the listing that marks
// the lines with problems.
func (v EditorView) RawLines() []string { return strings.Split(strings.TrimSuffix(v.Raw, "\n"), "\n") }

// BadLines are the line numbers problems point at.
func (v EditorView) BadLines() []int {
	var out []int
	for _, p := range v.RawProblems {
		if p.Line > 0 && p.Severity == registry.SeverityError {
			out = append(out, p.Line)
		}
	}
	return out
}

// IsBadLine reports whether an error points at line n.
func (v EditorView) IsBadLine(n int) bool { return slices.Contains(v.BadLines(), n) }

// LineProblem is the first error message about line n.
func (v EditorView) LineProblem(n int) string {
	for _, p := range v.RawProblems {
		if p.Line == n && p.Severity == registry.SeverityError {
			return p.Message
		}
	}
	return ""
}

// editorProblem is one lint marker for the code editor (docs/web.md, "Code editors").
type editorProblem struct {
	Line     int    `json:"line"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// EditorProblems is the raw file's data-problems attribute: the problems that
// point at a line, as JSON, so the code editor marks those lines.
func (v EditorView) EditorProblems() string {
	out := []editorProblem{}
	for _, p := range v.RawProblems {
		if p.Line > 0 {
			out = append(out, editorProblem{p.Line, p.Severity, p.Message})
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// rowsFor sizes a read-only textarea to its text, up to 20 lines.
func rowsFor(s string) string { return strconv.Itoa(min(max(strings.Count(s, "\n")+1, 3), 20)) }

// RenameValue is what the Rename form's field holds: the name a refused
// rename asked for, or the agent's own.
func (v EditorView) RenameValue() string { return cmp.Or(v.RenameTo, v.Name) }
