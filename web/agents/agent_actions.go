package agents

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/registry"

	"github.com/agentry/agentry/web/core"
)

// Toggle flips enabled from the agents list.
func (s *Pages) Toggle(c echo.Context) error {
	snap := s.cfg.Agents.Snapshot()
	file, _, err := requested(c, snap)
	if err != nil {
		return err
	}
	doc, ok := snap.Document(file.Path)
	if !ok {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "this file cannot be read as an agent; fix it first")
	}
	if err := doc.Set("enabled", c.FormValue("enabled") == "true"); err != nil {
		return fmt.Errorf("set enabled: %w", err)
	}
	hash, err := s.cfg.Files.Write(file.Path, doc.Bytes(), c.FormValue("hash"))
	if err != nil {
		return fmt.Errorf("toggle %s: %w", file.Path, err)
	}
	s.awaitFile(file.Path, hash)
	if core.IsHTMX(c) {
		return s.List(c)
	}
	return c.Redirect(http.StatusSeeOther, "/agents")
}

// Rename renames the agent and its file.
func (s *Pages) Rename(c echo.Context) error {
	snap := s.cfg.Agents.Snapshot()
	file, href, err := requested(c, snap)
	if err != nil {
		return err
	}
	to := strings.TrimSpace(c.FormValue("to"))
	if !registry.ValidName(to) {
		return s.refuseRename(c, http.StatusBadRequest, snap, file, href, to,
			fmt.Sprintf("%q is not a valid agent name: use 1–64 characters: %s", to, nameChars))
	}
	hash := c.FormValue("hash")
	old, _ := snap.Document(file.Path)
	if err := s.moveFile(file.Path, hash, to); err != nil {
		if status := core.StatusOf(err); status == http.StatusConflict {
			return s.refuseRename(c, status, snap, file, href, to, core.MessageOf(err, status, ""))
		}
		return err
	}
	if doc, ok := s.cfg.Agents.Snapshot().Document(siblingPath(file.Path, to)); ok && renameWritesName(old, file.Agent) {
		if err := doc.Set("name", to); err != nil {
			return fmt.Errorf("set name: %w", err)
		}
		newHash, err := s.cfg.Files.Write(doc.File(), doc.Bytes(), hash)
		if err != nil {
			return fmt.Errorf("rename %s: %w", file.Path, err)
		}
		s.awaitFile(doc.File(), newHash)
	}
	return c.Redirect(http.StatusSeeOther, s.savedHref(siblingPath(file.Path, to)))
}

// refuseRename shows the agent's editor again, as a refused save does:
// the reason in the banner and beside the Rename form, which stays open
// with the name that was typed, so the person keeps their place.
func (s *Pages) refuseRename(c echo.Context, status int, snap *registry.Snapshot, file registry.File, href, to, why string) error {
	v := s.onDisk(snap, file, href)
	v.RenameTo, v.RenameRefused = to, why
	return s.renderEditor(c, status, v)
}

// renameWritesName reports whether renaming d's agent to a new id rewrites
// its name:. A VS Code file is named by its file: its name: is a display
// name ("Fancy Planner") that stays as the person wrote it, unless it was
// the id itself. Elsewhere name: is the id (one that is not is replaced).
func renameWritesName(d *registry.Document, id string) bool {
	if d == nil {
		return false
	}
	if registry.VSCodeSuffix(d.File()) == "" {
		return true
	}
	v, ok := d.Get("name")
	return ok && v == id
}

// moveFile renames an agent's file to match a new agent name.
func (s *Pages) moveFile(oldPath, hash, to string) error {
	newPath := siblingPath(oldPath, to)
	if newPath != oldPath {
		err := s.cfg.Files.Rename(oldPath, newPath, hash)
		if errors.Is(err, registry.ErrExists) {
			return echo.NewHTTPError(http.StatusConflict, fmt.Sprintf("cannot rename: %s already exists in the agents folder", newPath))
		}
		if err != nil {
			return fmt.Errorf("rename %s: %w", oldPath, err)
		}
		s.awaitFile(oldPath, "")
		s.awaitFile(newPath, hash)
	}
	return nil
}

// DeleteConfirm asks before deleting.
func (s *Pages) DeleteConfirm(c echo.Context) error {
	file, href, err := requested(c, s.cfg.Agents.Snapshot())
	if err != nil {
		return err
	}
	v := DeleteView{Name: cmp.Or(file.Agent, file.Path), Path: file.Path, Hash: file.Hash, Href: href}
	return core.Render(c, http.StatusOK, DeletePage(core.Page(c, "Delete "+v.Name, "/agents"), v))
}

// Delete removes the file, if it is still the version the user saw.
func (s *Pages) Delete(c echo.Context) error {
	file, _, err := requested(c, s.cfg.Agents.Snapshot())
	if err != nil {
		return err
	}
	if err := s.cfg.Files.Delete(file.Path, c.FormValue("hash")); err != nil {
		return fmt.Errorf("delete %s: %w", file.Path, err)
	}
	s.awaitFile(file.Path, "")
	return c.Redirect(http.StatusSeeOther, "/agents")
}

// SaveRaw writes the raw file view, for files the form cannot show.
func (s *Pages) SaveRaw(c echo.Context) error {
	snap := s.cfg.Agents.Snapshot()
	file, href, err := requested(c, snap)
	if err != nil {
		return err
	}
	raw := c.FormValue("raw")
	old := s.rawOf(snap, file)
	if !strings.Contains(old, "\r\n") {
		raw = normalizeNewlines(raw) // browsers submit textareas with CRLF
	}
	// A refused raw save shows the file on disk in the form, untouched,
	// and the submitted text in the raw view with its problems marked.
	v := s.onDisk(snap, file, href)
	refuse := func(ps []registry.Problem) error {
		v.Raw, v.RawProblems, v.RawRefused = raw, problemViews(ps), true
		v.Refused = bySeverity(v.RawProblems, registry.SeverityError)
		return s.renderEditor(c, http.StatusUnprocessableEntity, v)
	}
	doc, err := registry.Parse(file.Path, []byte(raw))
	if err != nil {
		return refuse(core.ProblemsOf(err))
	}
	conflict := func() error { // the form shows the submitted text, beside its own problems
		a, _ := doc.Agent()
		v.Form = formFromAgent(a, doc.Body())
		return s.renderConflict(c, v, doc)
	}
	if c.FormValue("hash") != file.Hash {
		return conflict()
	}
	if ps := snap.Check(file.Path, doc); hasErrors(problemViews(ps)) {
		return refuse(ps)
	}
	hash, err := s.cfg.Files.Write(file.Path, []byte(raw), file.Hash)
	if errors.Is(err, registry.ErrConflict) {
		return conflict()
	}
	if err != nil {
		return fmt.Errorf("save %s: %w", file.Path, err)
	}
	s.awaitFile(file.Path, hash)
	return c.Redirect(http.StatusSeeOther, s.savedHref(file.Path))
}

// rawOf is the file's text as the registry last read it.
func (s *Pages) rawOf(snap *registry.Snapshot, f registry.File) string {
	b, _ := snap.Raw(f.Path)
	return string(b)
}

// awaitFile waits until the registry holds path with hash ("" = until
// path is gone): the next page must not show the old version (core.AwaitFile).
func (s *Pages) awaitFile(path, hash string) { core.AwaitFile(s.cfg.Agents, s.stop, path, hash) }
