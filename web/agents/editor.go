package agents

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"

	"github.com/agentry/agentry/web/core"
)

// NewForm shows an empty editor, filled with the defaults a new file gets.
func (s *Pages) NewForm(c echo.Context) error {
	base, _, err := newDocument("")
	if err != nil {
		return err
	}
	base.Name, base.Body = "", "You are a helpful agent. Describe its job, its inputs and the shape of its answer.\n"
	// A new agent may use no tool until the author adds the ones it needs:
	// the least it can do is the safe default.
	base.ToolsAny, base.ToolsAllow = false, []string{}
	v := EditorView{New: true, Action: "/agents/new", Form: base}
	return s.renderEditor(c, http.StatusOK, v)
}

// Create validates the new agent and writes NAME.md.
func (s *Pages) Create(c echo.Context) error {
	form, err := c.FormParams()
	if err != nil {
		return err
	}
	f := parseForm(form)
	v := EditorView{New: true, Action: "/agents/new", Form: f, Problems: f.check()}
	if hasErrors(v.Problems) {
		return s.refuse(c, http.StatusUnprocessableEntity, v)
	}
	v.Path = f.Name + ".md"
	base, doc, err := newDocument(f.Name)
	if err != nil {
		return err
	}
	if err := f.apply(doc, base); err != nil {
		return err
	}
	v.Problems = refusal(v.Problems, problemViews(s.cfg.Agents.Snapshot().Check(v.Path, doc)))
	if hasErrors(v.Problems) {
		return s.refuse(c, http.StatusUnprocessableEntity, v)
	}
	hash, err := s.cfg.Files.Write(v.Path, doc.Bytes(), "")
	if errors.Is(err, registry.ErrExists) {
		v.Problems = append(v.Problems, ProblemView{Severity: registry.SeverityError, Field: "name",
			Message: fmt.Sprintf("a file named %s already exists in the agents folder; pick another name", v.Path)})
		return s.refuse(c, core.StatusOf(err), v)
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", v.Path, err)
	}
	s.awaitFile(v.Path, hash)
	return c.Redirect(http.StatusSeeOther, s.savedHref(v.Path))
}

// newDocument parses the smallest file for name, and returns the form it
// fills; apply compares against it so defaults are not written out.
func newDocument(name string) (AgentForm, *registry.Document, error) {
	file := name + ".md"
	doc, err := registry.Parse(file, []byte("---\nname: "+name+"\n---\n"))
	if err != nil {
		return AgentForm{}, nil, fmt.Errorf("new agent: %w", err)
	}
	return formFromDocument(doc), doc, nil
}

// defaults is what an agent gets for each field its file leaves out, for
// the "not set" hints of the form.
var defaults = func() AgentForm {
	doc, err := registry.Parse("x.md", []byte("---\nname: x\n---\n"))
	if err != nil {
		return AgentForm{}
	}
	a, _ := doc.Agent()
	return formFromAgent(a, "")
}()

// defaultText is the hint of a field the file does not set: "not set
// (default: parallel)".
func defaultText(key string) string {
	d := map[string]string{
		"subagents.execution": defaults.Execution, "subagents.context": defaults.Context,
		"subagents.max_concurrent": defaults.MaxConcurrent, "max_turns": defaults.MaxTurns,
		"timeout": defaults.Timeout, "retry.max_attempts": defaults.RetryAttempts, "retry.backoff": defaults.RetryBackoff,
	}[key]
	if d == "" {
		return "not set"
	}
	return "not set (default: " + d + ")"
}

// Edit shows the editor for an existing agent file.
func (s *Pages) Edit(c echo.Context) error {
	snap := s.cfg.Agents.Snapshot()
	file, href, err := requested(c, snap)
	if err != nil {
		return err
	}
	v := s.onDisk(snap, file, href)
	v.Saved = c.QueryParam("saved") != ""
	return s.renderEditor(c, http.StatusOK, v)
}

// onDisk is the editor filled from the file as the registry holds it.
func (s *Pages) onDisk(snap *registry.Snapshot, file registry.File, href string) EditorView {
	v := EditorView{Href: href, Action: href, Path: file.Path, Hash: file.Hash,
		Problems: problemViews(s.problemsOf(snap, file)), Raw: s.rawOf(snap, file)}
	v.RawProblems = v.Problems
	if doc, ok := snap.Document(file.Path); ok {
		v.Form = formFromDocument(doc)
		v.Name = v.Form.Name
		if a, _ := doc.Agent(); a.DisplayName != "" {
			v.Display = a.DisplayName
		}
	}
	if a, ok := snap.Agent(file.Agent); ok && a.File == file.Path {
		v.Runnable = true
	}
	return v
}

// refuse shows the editor again with the errors that kept the save from
// being written, in the banner at the top and beside their fields.
func (s *Pages) refuse(c echo.Context, status int, v EditorView) error {
	v.Refused = bySeverity(v.Problems, registry.SeverityError)
	return s.renderEditor(c, status, v)
}

// Save validates the form against the file it was filled from and
// writes the changed fields, refusing if the file changed since.
func (s *Pages) Save(c echo.Context) error {
	snap := s.cfg.Agents.Snapshot()
	file, href, err := requested(c, snap)
	if err != nil {
		return err
	}
	form, err := c.FormParams()
	if err != nil {
		return err
	}
	doc, ok := snap.Document(file.Path)
	if !ok {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "this file cannot be read as an agent; fix it in the raw file view")
	}
	base, f := formFromDocument(doc), parseForm(form)
	v := s.onDisk(snap, file, href)
	v.Form = f
	written := f
	if !renameWritesName(doc, base.Name) { // the file's name gives the id: moveFile renames it
		written.Name = base.Name
	}
	if err := written.apply(doc, base); err != nil {
		return err
	}
	if form.Get("hash") != file.Hash {
		return s.renderConflict(c, v, doc)
	}
	v.Problems = refusal(f.check(), problemViews(snap.Check(file.Path, doc)))
	if hasErrors(v.Problems) {
		return s.refuse(c, http.StatusUnprocessableEntity, v)
	}
	hash, err := s.cfg.Files.Write(file.Path, doc.Bytes(), file.Hash)
	if errors.Is(err, registry.ErrConflict) {
		return s.renderConflict(c, v, doc)
	}
	if err != nil {
		return fmt.Errorf("save %s: %w", file.Path, err)
	}
	s.awaitFile(file.Path, hash)
	saved := file.Path
	if f.Name != base.Name {
		if err := s.moveFile(file.Path, hash, f.Name); err != nil {
			return err
		}
		saved = siblingPath(file.Path, f.Name)
	}
	return c.Redirect(http.StatusSeeOther, s.savedHref(saved))
}

// renderConflict shows the form again with both versions and the disk's hash,
// so pressing Save once more overwrites the file on purpose. The form holds
// what the person typed (v.Form, yours), so the problems beside its fields
// are yours, not the disk's; the raw view shows the disk's file with the
// disk's problems.
func (s *Pages) renderConflict(c echo.Context, v EditorView, yours *registry.Document) error {
	snap := s.cfg.Agents.Snapshot()
	v.Problems = refusal(v.Form.check(), problemViews(snap.Check(v.Path, yours)))
	disk := ""
	if now, ok := snap.File(v.Path); ok {
		v.Hash, disk = now.Hash, s.rawOf(snap, now)
	} else {
		v.Hash, disk = "", "(the file has been deleted)"
	}
	v.Conflict = &ConflictView{Yours: string(yours.Bytes()), OnDisk: disk}
	v.Raw = disk
	return s.renderEditor(c, http.StatusConflict, v)
}

// renderEditor fills the picker suggestions and the preview, and renders.
func (s *Pages) renderEditor(c echo.Context, status int, v EditorView) error {
	snap := s.cfg.Agents.Snapshot()
	v.Tools, v.Agents, v.Models = toolChoices(snap), agentChoices(snap), s.cfg.Models
	preview, err := core.Markdown(v.Form.Body)
	if err != nil {
		return err
	}
	v.Preview = preview
	title := "New agent"
	if !v.New {
		title = v.Name
		if title == "" {
			title = v.Path
		}
	}
	return core.Render(c, status, EditorPage(core.Page(c, title, "/agents"), v))
}

// lookupFile finds the file of an agent by name; a file too broken to name an
// agent is found by its file name, so it can still be opened and fixed.
func lookupFile(snap *registry.Snapshot, name string) (registry.File, error) {
	if f, ok := snap.FileFor(name); ok {
		return f, nil
	}
	return registry.File{}, core.NotFound("agent", name)
}

func agentHref(name string) string { return "/agents/" + url.PathEscape(name) }

// toolChoices are the tools and groups the pickers offer: every known tool
// (built-in, and "<server>.*" for each configured MCP server) and its group,
// each once: serve's known tools name the optional built-ins (shell.run,
// web.search, ...) a second time.
func toolChoices(snap *registry.Snapshot) []string {
	known := snap.Options().KnownTools
	if known == nil {
		known = registry.BuiltinTools
	}
	out := []string{"*"}
	for _, t := range known {
		if g, _, ok := strings.Cut(t, "."); ok && !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	for _, t := range known {
		if !strings.HasSuffix(t, ".*") && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// agentChoices are the agents the sub-agent pickers offer.
func agentChoices(snap *registry.Snapshot) []string {
	out := []string{"*", permissions.GeneralPurpose}
	for _, a := range snap.Agents() {
		out = append(out, a.Name)
	}
	return out
}

// nameChars says what an agent id may hold (registry.IDPattern).
const nameChars = "lowercase letters, digits, '.', '-' and '_', starting with a letter or digit"

// nameHint is the Name field's hint for the file at path ("" for a new
// agent): what an id may hold, and the file it saves to.
func nameHint(path string) string {
	return "lowercase letters, digits, '.', '-' and '_'; the file is saved as NAME" + cmp.Or(registry.VSCodeSuffix(path), ".md")
}

// siblingPath is the path a renamed agent's file gets: same folder, same
// suffix (.agent.md and .chatmode.md stay VS Code files).
func siblingPath(old, name string) string {
	suffix := cmp.Or(registry.VSCodeSuffix(old), ".md")
	dir := path.Dir(old)
	if dir == "." {
		return name + suffix
	}
	return dir + "/" + name + suffix
}
