package workflows

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/web/core"
)

// StartView is the start form generated from a workflow's inputs.
type StartView struct {
	Stem, File, Name, Description string
	Stale                         bool // the file is broken: the last good version runs
	Fields                        []Field
	Models                        []core.ModelChoice
	Model                         string
	Problem                       string
	CanRun                        bool
}

// Field is one declared input as a form field.
type Field struct {
	Name, Type, Description string
	Required                bool
	Default                 string // the default as text, "" when none
	HasDefault              bool
	Value                   string // what the person typed
	Problem                 string
}

// Widget is the kind of form control the field's type gets.
func (f Field) Widget() string {
	switch f.Type {
	case "boolean":
		return "select"
	case "json":
		return "textarea"
	case "number":
		return "number"
	}
	return "text" // string, file_path
}

// Kind is the label's note: "(number, required)".
func (f Field) Kind() string {
	if f.Required {
		return "(" + f.Type + ", required)"
	}
	return "(" + f.Type + ")"
}

// Placeholder hints at what to type.
func (f Field) Placeholder() string {
	switch {
	case f.HasDefault:
		return "default: " + f.Default
	case f.Type == "file_path":
		return "a path in the workspace"
	case f.Type == "json":
		return `a JSON value, e.g. ["a", "b"] or {"k": 1}`
	}
	return ""
}

// RunForm is GET /workflows/:name/run.
func (p *Pages) RunForm(c echo.Context) error {
	v, _, err := p.startView(c)
	if err != nil {
		return err
	}
	return p.renderStart(c, http.StatusOK, v)
}

// Run is POST /workflows/:name/run: it converts the inputs to their types,
// checks the model as the runs form does, starts the run and sends the
// browser to its timeline. Empty fields are not given, so defaults apply.
func (p *Pages) Run(c echo.Context) error {
	v, wf, err := p.startView(c)
	if err != nil {
		return err
	}
	given := map[string]any{}
	for i := range v.Fields {
		f := &v.Fields[i]
		f.Value = c.FormValue("input." + f.Name)
		if strings.TrimSpace(f.Value) != "" {
			given[f.Name] = f.Value
		}
	}
	v.Model = strings.TrimSpace(c.FormValue("model"))
	inputs, err := workflow.ResolveInputs(wf, given)
	var missing *workflow.MissingInputError
	switch {
	case !v.CanRun:
		v.Problem = "This server cannot start workflow runs: it was built without a runtime or a trace store."
	case errors.As(err, &missing):
		for i := range v.Fields {
			for _, n := range missing.Names {
				if v.Fields[i].Name == n {
					v.Fields[i].Problem = "Required."
				}
			}
		}
		v.Problem = "Fill in the required inputs: " + strings.Join(missing.Names, ", ") + "."
	case err != nil:
		v.Problem = err.Error()
	default:
		v.Problem = p.cfg.Models.CheckModel(v.Models, v.Model)
	}
	if v.Problem == "" {
		req := RunRequest{Workflow: wf, Inputs: inputs, Model: v.Model}
		id, err := p.cfg.Launch(func(ctx context.Context) (Execution, error) { return p.cfg.Runner.Start(ctx, req) })
		if err == nil {
			return c.Redirect(http.StatusSeeOther, "/runs/"+id)
		}
		p.log.Info("start workflow run", "workflow", wf.Name, "model", v.Model, "err", err)
		v.Problem = "The run could not start: " + firstLine(err)
	}
	return p.renderStart(c, http.StatusUnprocessableEntity, v)
}

// startView builds the form from the served version of the workflow.
func (p *Pages) startView(c echo.Context) (StartView, *workflow.Workflow, error) {
	s, f, err := p.requested(c)
	if err != nil {
		return StartView{}, nil, err
	}
	wf, ok := s.Workflow(f.Path)
	if !ok {
		return StartView{}, nil, echo.NewHTTPError(http.StatusConflict,
			fmt.Sprintf("%s cannot run: it has errors and no earlier version loaded; fix it in the editor", f.Path))
	}
	v := StartView{Stem: workflow.Stem(f.Path), File: f.Path, Name: wf.Name, Description: wf.Description, Stale: f.Stale,
		Models: p.cfg.Models.ModelChoices(), Model: core.OwnModel, CanRun: p.cfg.Runner != nil && p.cfg.Launch != nil}
	for _, in := range wf.Inputs {
		fd := Field{Name: in.Name, Type: in.Type, Description: in.Description, Required: in.Required, HasDefault: in.HasDefault}
		if in.HasDefault {
			fd.Default = workflow.Text(in.Default)
		}
		v.Fields = append(v.Fields, fd)
	}
	return v, wf, nil
}

func (p *Pages) renderStart(c echo.Context, status int, v StartView) error {
	return core.Render(c, status, StartPage(core.Page(c, "Run "+v.Name, "/workflows"), v))
}

// firstLine is what the page says about an error: its first line,
// shortened; the whole error goes to the log.
func firstLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	if r := []rune(msg); len(r) > 300 {
		msg = string(r[:300]) + "…"
	}
	return msg
}
