package evals

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/delegation/eval"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/web/core"
)

// Suites is the evals folder; *eval.Catalog satisfies it.
type Suites interface {
	Files() []eval.SuiteFile
	File(name string) (eval.SuiteFile, error)
}

// Store is what the pages read: trace.EvalStore, and runs' documents.
type Store interface {
	Evals(ctx context.Context, suite string, limit int) ([]trace.Eval, error)
	Eval(ctx context.Context, id string) (trace.Eval, []trace.EvalCase, error)
	Export(ctx context.Context, id string) (trace.Document, error)
}

// Files saves suite files; *folder.Writer of the evals folder satisfies it.
type Files interface {
	Write(path string, data []byte, expectHash string) (string, error)
}

// Config is what the pages need; any of them may be nil, and the pages
// say what is missing.
type Config struct {
	Suites Suites
	Store  Store
	Files  Files
	Log    *slog.Logger
}

// Pages serves the evals pages.
type Pages struct{ cfg Config }

// New builds the evals pages.
func New(cfg Config) *Pages { return &Pages{cfg: cfg} }

// evalsListed is how many evals a suite's page lists.
const evalsListed = 50

// List is GET /evals: every suite with its latest eval.
func (p *Pages) List(c echo.Context) error {
	v := ListView{Off: p.cfg.Suites == nil}
	if p.cfg.Suites != nil {
		for _, f := range p.cfg.Suites.Files() {
			row := SuiteRow{Name: f.Name, Path: f.Path}
			if f.Err != nil {
				row.Problem = f.Err.Error()
			} else {
				row.Target, row.Kind, row.Cases = f.Suite.Target(), f.Suite.Kind(), len(f.Suite.Cases)
			}
			if p.cfg.Store != nil {
				latest, err := p.cfg.Store.Evals(c.Request().Context(), f.Name, 1)
				if err != nil {
					return fmt.Errorf("evals of %s: %w", f.Name, err)
				}
				if len(latest) > 0 {
					e := evalRow(latest[0])
					row.Latest = &e
				}
			}
			v.Suites = append(v.Suites, row)
		}
	}
	return core.Render(c, http.StatusOK, ListPage(core.Page(c, "Evals", "/evals"), v))
}

// Suite is GET /evals/:suite: its evals newest first, the latest one's
// cases, and the form that compares two.
func (p *Pages) Suite(c echo.Context) error {
	name := c.Param("suite")
	v := SuiteView{Name: name, Added: c.QueryParam("added")}
	if p.cfg.Suites != nil {
		if f, err := p.cfg.Suites.File(name); err == nil {
			v.Path = f.Path
			if f.Err != nil {
				v.Problem = f.Err.Error()
			}
			if f.Suite != nil {
				v.Target, v.Kind = f.Suite.Target(), f.Suite.Kind()
			}
		}
	}
	if p.cfg.Store == nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "This server's trace store keeps no evals.")
	}
	ctx := c.Request().Context()
	list, err := p.cfg.Store.Evals(ctx, name, evalsListed)
	if err != nil {
		return fmt.Errorf("evals of %s: %w", name, err)
	}
	if len(list) == 0 && v.Path == "" {
		return core.NotFound("eval suite", name)
	}
	for _, e := range list {
		v.Evals = append(v.Evals, evalRow(e))
	}
	if len(list) > 0 {
		_, cases, err := p.cfg.Store.Eval(ctx, list[0].ID)
		if err != nil {
			return fmt.Errorf("eval %s: %w", list[0].ID, err)
		}
		for _, c := range cases {
			v.Latest = append(v.Latest, caseRow(c))
		}
	}
	return core.Render(c, http.StatusOK, SuitePage(core.Page(c, "Evals · "+name, "/evals"), v))
}

// Compare is GET /evals/:suite/compare?a=EVAL&b=EVAL: two evals of a suite
// case by case; without a and b, the two newest.
func (p *Pages) Compare(c echo.Context) error {
	if p.cfg.Store == nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "This server's trace store keeps no evals.")
	}
	ctx, name := c.Request().Context(), c.Param("suite")
	a, b := c.QueryParam("a"), c.QueryParam("b")
	if a == "" || b == "" {
		list, err := p.cfg.Store.Evals(ctx, name, 2)
		if err != nil {
			return fmt.Errorf("evals of %s: %w", name, err)
		}
		if len(list) == 0 && !p.hasSuite(name) {
			return core.NotFound("eval suite", name)
		}
		if len(list) < 2 {
			return echo.NewHTTPError(http.StatusNotFound, "Suite "+name+" has fewer than two evals to compare; run agentry eval "+name+" again.")
		}
		a, b = list[1].ID, list[0].ID
	}
	ea, ca, err := p.cfg.Store.Eval(ctx, a)
	if err != nil {
		return core.AsMissing(fmt.Errorf("compare evals: %w", err), "eval", a)
	}
	eb, cb, err := p.cfg.Store.Eval(ctx, b)
	if err != nil {
		return core.AsMissing(fmt.Errorf("compare evals: %w", err), "eval", b)
	}
	if ea.Suite != name || eb.Suite != name {
		return echo.NewHTTPError(http.StatusBadRequest, "Both evals must be of suite "+name+".")
	}
	return core.Render(c, http.StatusOK, ComparePage(core.Page(c, "Compare · "+name, "/evals"), compare(ea, ca, eb, cb)))
}

// hasSuite reports whether the evals folder has a file of suite name.
func (p *Pages) hasSuite(name string) bool {
	if p.cfg.Suites == nil {
		return false
	}
	_, err := p.cfg.Suites.File(name)
	return err == nil
}

// NewCase is GET /evals/new-case?run=ID: the form that adds a run as a
// case, its YAML written from the run for the person to edit.
func (p *Pages) NewCase(c echo.Context) error {
	if p.cfg.Store == nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "This server has no trace store.")
	}
	doc, err := p.cfg.Store.Export(c.Request().Context(), c.QueryParam("run"))
	if err != nil {
		return core.AsMissing(fmt.Errorf("add run as eval case: %w", err), "run", c.QueryParam("run"))
	}
	v := p.caseForm(doc)
	v.CSRF = core.CSRFToken(c)
	return core.Render(c, http.StatusOK, NewCasePage(core.Page(c, "Add eval case", "/evals"), v))
}

// caseForm is the form for doc's run: the suites of its target, the case
// written from it.
func (p *Pages) caseForm(doc trace.Document) CaseForm {
	kind, target := "agent", doc.Run.Agent
	if wf := workflowOf(doc); wf != "" {
		kind, target = "workflow", wf
	}
	name := slug(firstWords(doc.Run.Task, 5))
	v := CaseForm{RunID: doc.Run.ID, Kind: kind, Target: target, Suite: target, Name: name,
		YAML: string(eval.CaseFromRun(name, doc)), CanSave: p.cfg.Files != nil && p.cfg.Suites != nil}
	if p.cfg.Suites != nil {
		for _, f := range p.cfg.Suites.Files() {
			if f.Suite != nil && f.Suite.Target() == target && f.Suite.Kind() == kind {
				v.Suites = append(v.Suites, f.Name)
			}
		}
	}
	if len(v.Suites) > 0 {
		v.Suite = v.Suites[0]
	}
	return v
}

// AddCase is POST /evals/new-case: the case appended to the suite named
// (a new suite file when there is none), through the folder's save.
func (p *Pages) AddCase(c echo.Context) error {
	if p.cfg.Files == nil || p.cfg.Suites == nil || p.cfg.Store == nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "This server cannot write eval suites.")
	}
	doc, err := p.cfg.Store.Export(c.Request().Context(), c.FormValue("run"))
	if err != nil {
		return core.AsMissing(fmt.Errorf("add eval case: %w", err), "run", c.FormValue("run"))
	}
	v := p.caseForm(doc)
	v.CSRF, v.Suite, v.YAML = core.CSRFToken(c), strings.TrimSpace(c.FormValue("suite")), c.FormValue("yaml")
	v.YAML = strings.ReplaceAll(v.YAML, "\r\n", "\n")
	if !strings.HasSuffix(v.YAML, "\n") {
		v.YAML += "\n"
	}
	if err := p.appendCase(v); err != nil {
		v.Problem = err.Error()
		return core.Render(c, http.StatusUnprocessableEntity, NewCasePage(core.Page(c, "Add eval case", "/evals"), v))
	}
	return c.Redirect(http.StatusSeeOther, "/evals/"+url.PathEscape(v.Suite)+"?added=1")
}

// appendCase writes v's case into its suite's file.
func (p *Pages) appendCase(v CaseForm) error {
	if v.Suite == "" || slug(v.Suite) != v.Suite {
		return fmt.Errorf("the suite name %q is not a file name (use lowercase letters, digits and -)", v.Suite)
	}
	f, err := p.cfg.Suites.File(v.Suite)
	switch {
	case errors.Is(err, eval.ErrNoSuite):
		data := eval.NewSuiteText(v.Kind, v.Target, []byte(v.YAML))
		if _, err := eval.Parse(v.Suite+".yaml", data); err != nil {
			return err
		}
		_, err = p.cfg.Files.Write(v.Suite+".yaml", data, "")
		return err
	case err != nil:
		return err
	case f.Err != nil:
		return fmt.Errorf("%s does not parse; fix it first: %w", f.Path, f.Err)
	}
	data, err := eval.AppendCase(f.Path, f.Data, []byte(v.YAML))
	if err != nil {
		return err
	}
	_, err = p.cfg.Files.Write(f.Path, data, f.Hash)
	if errors.Is(err, registry.ErrConflict) {
		return fmt.Errorf("%s changed while you edited; the case was not added, try again: %w", f.Path, err)
	}
	return err
}

// workflowOf is the workflow a run ran, "" for an agent's run.
func workflowOf(doc trace.Document) string {
	for _, sp := range doc.Spans {
		if sp.ParentID == "" && sp.Kind == trace.KindInvokeWorkflow {
			name, _ := sp.Attributes["workflow"].(string)
			return name
		}
	}
	return ""
}

func evalRow(e trace.Eval) EvalRow {
	total := e.Passed + e.Failed
	r := EvalRow{ID: e.ID, Label: e.Label, Version: trace.ShortHash(e.Version), When: e.StartedAt.Local().Format("2006-01-02 15:04:05"),
		Passed: e.Passed, Failed: e.Failed}
	if total > 0 {
		r.Rate = fmt.Sprintf("%.0f%%", 100*float64(e.Passed)/float64(total))
	}
	return r
}

func caseRow(c trace.EvalCase) CaseRow {
	return CaseRow{Name: c.Name, Passed: c.Passed, RunID: c.RunID, Failures: c.Failures, Tokens: c.InputTokens + c.OutputTokens,
		Cost: fmt.Sprintf("$%.4f", c.CostUSD), Latency: c.Duration.Round(time.Millisecond).String(), Judge: judgeOf(c)}
}

// judgeOf is the rubric judge's answer and reasoning, "" without a rubric.
func judgeOf(c trace.EvalCase) string {
	for _, ch := range c.Checks {
		if ch.Judge != nil && ch.Judge.Answer != "" {
			return ch.Judge.Answer + ": " + ch.Judge.Reasoning
		}
	}
	return ""
}

// compare lines two evals up case by case, in A's order, then B's new cases.
func compare(ea trace.Eval, ca []trace.EvalCase, eb trace.Eval, cb []trace.EvalCase) CompareView {
	v := CompareView{Suite: ea.Suite, A: evalRow(ea), B: evalRow(eb)}
	byName := map[string]trace.EvalCase{}
	for _, c := range cb {
		byName[c.Name] = c
	}
	var names []string
	for _, c := range ca {
		names = append(names, c.Name)
	}
	for _, c := range cb {
		if !slices.Contains(names, c.Name) {
			names = append(names, c.Name)
		}
	}
	inA := map[string]trace.EvalCase{}
	for _, c := range ca {
		inA[c.Name] = c
	}
	for _, n := range names {
		a, hasA := inA[n]
		b, hasB := byName[n]
		row := CompareRow{Name: n}
		if hasA {
			r := caseRow(a)
			row.A = &r
		}
		if hasB {
			r := caseRow(b)
			row.B = &r
		}
		switch {
		case hasA && hasB && a.Passed && !b.Passed:
			row.Change, v.Broke = "broke", v.Broke+1
		case hasA && hasB && !a.Passed && b.Passed:
			row.Change, v.Fixed = "fixed", v.Fixed+1
		case hasA && hasB:
			row.Change = "same"
		case hasB:
			row.Change = "new"
		default:
			row.Change = "gone"
		}
		v.Cases = append(v.Cases, row)
	}
	return v
}

// firstWords is up to n words of s.
func firstWords(s string, n int) string {
	f := strings.Fields(s)
	return strings.Join(f[:min(n, len(f))], " ")
}

// slug is s as a name: lowercase letters, digits and single dashes.
func slug(s string) string {
	out := registry.Slug(s)
	if out == "" {
		return "case"
	}
	return out
}
