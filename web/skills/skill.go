package skills

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/skills"
	"github.com/agentry/agentry/web/core"
)

// maxShown is the most of a file the file view shows.
const maxShown = 256 << 10

// SkillView is a skill's page: what it is, its folder's files and the
// editor of its SKILL.md.
type SkillView struct {
	ID, Name, Description, Plugin, Root, Path, File string
	AllowedTools                                    string
	Files                                           []FileRow
	Problems                                        []ProblemView
	// The editor: frontmatter fields and body, and the version they come from.
	Body, Hash string
	ReadOnly   string // why the editor cannot save ("" when it can)
	Saved      bool
	Refused    bool
	Conflict   *Conflict
}

// FileRow is one file of a skill's folder.
type FileRow struct {
	Path, Href string
	Size       int64
}

// Conflict shows both versions when SKILL.md changed under the editor.
type Conflict struct{ Yours, OnDisk string }

// Show is GET /skills/ID.
func (p *Pages) Show(c echo.Context) error {
	v, err := p.skillView(c)
	if err != nil {
		return err
	}
	v.Saved = c.QueryParam("saved") != ""
	return core.Render(c, http.StatusOK, SkillPage(core.Page(c, v.ID, "/skills"), v))
}

// skillView builds the page of the requested skill from the library.
func (p *Pages) skillView(c echo.Context) (SkillView, error) {
	id, _ := url.PathUnescape(c.Param("id"))
	lib := p.library()
	s, ok := lib.Skill(id)
	if !ok {
		return SkillView{}, core.NotFound("skill", id)
	}
	file := s.Root + "/" + s.File()
	f, _ := lib.File(file)
	v := SkillView{ID: s.ID, Name: s.Name, Description: s.Description, Plugin: s.Plugin, Root: s.Root, Path: s.Path,
		File: file, AllowedTools: joinComma(s.AllowedTools), Problems: problemViews(f.Problems), Hash: f.Hash}
	for _, sf := range s.Files {
		v.Files = append(v.Files, FileRow{Path: sf.Path, Size: sf.Size, Href: skillHref(s.ID) + "/files/" + sf.Path})
	}
	if raw, err := readAll(lib, s.ID, skills.FileName); err == nil {
		if d, err := registry.Parse(file, raw); err == nil {
			v.Body = strings.TrimPrefix(d.Body(), "\n")
		}
	}
	v.ReadOnly = p.readOnly(lib, s, file)
	return v, nil
}

// readOnly says why a skill's SKILL.md cannot be saved here.
func (p *Pages) readOnly(lib *skills.Library, s skills.Skill, file string) string {
	if s.Plugin != "" {
		return "This skill comes from the plugin " + s.Plugin + ": it is an installed copy, which agentry plugins update replaces. Edit it in its marketplace."
	}
	root, _, ok := lib.Location(file)
	if !ok || p.cfg.Files == nil || p.cfg.Files(root.Label) == nil {
		return "This server does not write the folder " + s.Root + "."
	}
	return ""
}

func readAll(lib *skills.Library, id, file string) ([]byte, error) {
	f, err := lib.Open(id, file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, registry.MaxFileSize+1))
}

// Save is POST /skills/ID: the frontmatter fields and the body go into
// SKILL.md through registry.Document (only changed entries are rewritten),
// checked, and written with the folder's compare-and-swap.
func (p *Pages) Save(c echo.Context) error {
	v, err := p.skillView(c)
	if err != nil {
		return err
	}
	if v.ReadOnly != "" {
		return echo.NewHTTPError(http.StatusForbidden, v.ReadOnly)
	}
	lib := p.library()
	raw, err := readAll(lib, v.ID, skills.FileName)
	if err != nil {
		return err
	}
	d, err := registry.Parse(v.File, raw)
	if err != nil {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "SKILL.md does not parse; fix it on disk: "+err.Error())
	}
	for _, k := range []string{"name", "description"} {
		if err := d.Set(k, strings.TrimSpace(c.FormValue(k))); err != nil {
			return echo.NewHTTPError(http.StatusUnprocessableEntity, err.Error())
		}
	}
	d.SetBody("\n" + strings.TrimPrefix(c.FormValue("body"), "\n"))
	data := d.Bytes()
	v.Body, v.Description, v.Name = c.FormValue("body"), c.FormValue("description"), c.FormValue("name")
	s, _ := lib.Skill(v.ID)
	_, probs := skills.Parse(s.Dir, data, s.Files)
	v.Problems = problemViews(probs)
	if c.FormValue("hash") != v.Hash {
		return p.conflict(c, v, string(data))
	}
	for _, pr := range probs {
		if pr.Severity == registry.SeverityError {
			v.Refused = true
			return core.Render(c, http.StatusUnprocessableEntity, SkillPage(core.Page(c, v.ID, "/skills"), v))
		}
	}
	root, rel, _ := lib.Location(v.File)
	if _, err := p.cfg.Files(root.Label).Write(rel, data, v.Hash); errors.Is(err, registry.ErrConflict) {
		return p.conflict(c, v, string(data))
	} else if err != nil {
		return fmt.Errorf("save %s: %w", v.File, err)
	}
	return c.Redirect(http.StatusSeeOther, skillHref(v.ID)+"?saved=1")
}

// conflict shows the person's version beside the one on disk, whose hash
// a second Save overwrites on purpose.
func (p *Pages) conflict(c echo.Context, v SkillView, yours string) error {
	disk, _ := readAll(p.library(), v.ID, skills.FileName)
	f, _ := p.library().File(v.File)
	v.Hash = f.Hash
	v.Conflict = &Conflict{Yours: yours, OnDisk: string(disk)}
	return core.Render(c, http.StatusConflict, SkillPage(core.Page(c, v.ID, "/skills"), v))
}

// FileView is one file of a skill's folder, read-only.
type FileView struct {
	ID, Path, Href, Text string
	Binary, Truncated    bool
}

// File is GET /skills/ID/files/PATH: a text file's content; a binary one
// is named, not shown.
func (p *Pages) File(c echo.Context) error {
	id, _ := url.PathUnescape(c.Param("id"))
	rel := c.Param("*")
	lib := p.library()
	if _, ok := lib.Skill(id); !ok {
		return core.NotFound("skill", id)
	}
	f, err := lib.Open(id, rel)
	if err != nil {
		return core.NotFound("file", id+"/"+rel)
	}
	defer f.Close()
	data, _ := io.ReadAll(io.LimitReader(f, maxShown+1))
	v := FileView{ID: id, Path: rel, Href: skillHref(id), Truncated: len(data) > maxShown}
	data = data[:min(len(data), maxShown)]
	if !utf8.Valid(data) || strings.ContainsRune(string(data), 0) {
		v.Binary = true
	} else {
		v.Text = string(data)
	}
	return core.Render(c, http.StatusOK, FilePage(core.Page(c, id+"/"+rel, "/skills"), v))
}
