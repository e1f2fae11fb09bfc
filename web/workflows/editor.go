package workflows

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/web/core"
)

// EditorView is the YAML editor of one workflow file.
type EditorView struct {
	Stem, File string
	Text       string // what the textarea holds
	Hash       string // the version the text was started from (on a conflict: the disk's)
	Problems   []ProblemView
	Saved      bool
	Refused    bool // the last save was not written for its errors
	Conflict   *ConflictView
	ReadOnly   bool // the server cannot write the folder
}

// ConflictView shows both versions when the file changed under the editor.
type ConflictView struct{ Yours, OnDisk string }

// ProblemsJSON is the data-problems attribute: the problems with a line,
// for a code editor to mark; [] when there are none.
func (v EditorView) ProblemsJSON() string {
	out := []ProblemView{}
	for _, p := range v.Problems {
		if p.Line > 0 {
			out = append(out, p)
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// Edit is GET /workflows/:name/edit.
func (p *Pages) Edit(c echo.Context) error {
	s, f, err := p.requested(c)
	if err != nil {
		return err
	}
	raw, _ := s.Raw(f.Path)
	v := EditorView{Stem: workflow.Stem(f.Path), File: f.Path, Text: string(raw), Hash: f.Hash,
		Problems: problemViews(f.Problems), Saved: c.QueryParam("saved") != "", ReadOnly: p.cfg.Files == nil}
	return p.renderEditor(c, http.StatusOK, v)
}

// Save is POST /workflows/:name/edit: it validates the text and writes it
// if the file is still the version the editor was opened with.
func (p *Pages) Save(c echo.Context) error {
	s, f, err := p.requested(c)
	if err != nil {
		return err
	}
	if p.cfg.Files == nil {
		return echo.NewHTTPError(http.StatusForbidden, "this server cannot write the workflows folder")
	}
	text := c.FormValue("yaml")
	if raw, _ := s.Raw(f.Path); !strings.Contains(string(raw), "\r\n") {
		text = strings.ReplaceAll(text, "\r\n", "\n") // browsers submit textareas with CRLF
	}
	v := EditorView{Stem: workflow.Stem(f.Path), File: f.Path, Text: text, Hash: f.Hash}
	if c.FormValue("hash") != f.Hash {
		return p.renderConflict(c, v)
	}
	probs := p.cfg.Catalog.Check(f.Path, []byte(text))
	v.Problems = problemViews(probs)
	if probs.HasErrors() {
		v.Refused = true
		return p.renderEditor(c, http.StatusUnprocessableEntity, v)
	}
	_, err = p.cfg.Files.Write(f.Path, []byte(text), f.Hash)
	if errors.Is(err, registry.ErrConflict) {
		return p.renderConflict(c, v)
	}
	if err != nil {
		return fmt.Errorf("save %s: %w", f.Path, err)
	}
	return c.Redirect(http.StatusSeeOther, href(v.Stem)+"/edit?saved=1")
}

// renderConflict shows the person's text with the version on disk now and
// its hash, so pressing Save again overwrites the file on purpose. The
// catalog holds the disk's version: the folder re-reads a refused file.
func (p *Pages) renderConflict(c echo.Context, v EditorView) error {
	s := p.cfg.Catalog.Snapshot()
	disk := "(the file has been deleted)"
	v.Hash = ""
	if now, ok := s.File(v.File); ok {
		raw, _ := s.Raw(now.Path)
		v.Hash, disk = now.Hash, string(raw)
	}
	v.Conflict = &ConflictView{Yours: v.Text, OnDisk: disk}
	return p.renderEditor(c, http.StatusConflict, v)
}

func (p *Pages) renderEditor(c echo.Context, status int, v EditorView) error {
	return core.Render(c, status, EditorPage(core.Page(c, "Edit "+v.File, "/workflows"), v))
}

// Banner is the one message at the top of the editor about the last save
// (not saved, saved, saved with warnings) or the file's problems, as the
// agent editor words it; a conflict has its own notice.
func (v EditorView) Banner() core.Banner {
	errs, warns := 0, 0
	for _, p := range v.Problems {
		if p.Severity == registry.SeverityError {
			errs++
		} else {
			warns++
		}
	}
	items := make([]core.BannerItem, len(v.Problems))
	for i, p := range v.Problems {
		items[i] = core.BannerItem{Text: p.Message}
		if p.Line > 0 {
			items[i].Label = "Line " + strconv.Itoa(p.Line)
		}
	}
	switch {
	case v.Conflict != nil:
		return core.Banner{}
	case v.Refused:
		return core.Banner{Kind: "bad", TestID: "not-saved", Title: "Not saved: " + core.Count(errs, "problem"), Items: items}
	case v.Saved && warns == 0:
		return core.Banner{Kind: "good", TestID: "saved", Title: "Saved to " + v.File + "."}
	case v.Saved:
		return core.Banner{Kind: "warn", TestID: "saved", Title: "Saved to " + v.File + " with " + core.Count(warns, "warning"), Items: items}
	case errs > 0:
		return core.Banner{Kind: "bad", TestID: "file-problems", Title: core.Count(errs, "problem") + " in this file", Items: items}
	case warns > 0:
		return core.Banner{Kind: "warn", TestID: "file-problems", Title: core.Count(warns, "warning") + " in this file", Items: items}
	}
	return core.Banner{}
}
