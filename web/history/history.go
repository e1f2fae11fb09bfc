package history

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/git"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/web/core"
)

// Versions is what the pages read of the store; trace.VersionStore
// satisfies it.
type Versions interface {
	Versions(ctx context.Context, kind, name string) ([]trace.Version, error)
	Version(ctx context.Context, kind, name, hash string) (trace.Version, error)
	VersionUses(ctx context.Context, kind, name string, limit int) ([]trace.VersionUse, error)
	LatestVersions(ctx context.Context, kind string) (map[string]trace.Version, error)
}

// Files saves a restored version as the web's save does;
// *folder.Writer satisfies it.
type Files interface {
	WriteNoted(path string, data []byte, expectHash, note string) (string, error)
}

// Config is what the pages need. Agents (or Current) is required; without
// Versions the pages say the store keeps none; without Files restore is
// off.
type Config struct {
	Agents   interface{ Snapshot() *registry.Snapshot }
	Versions Versions
	Files    Files
	// AgentsDir is the agents folder on disk, whose git repository (if it
	// is in one) the page reads commits from; "" reads none.
	AgentsDir string
	Log       *slog.Logger
	// Kind is the kind of file the pages list the versions of:
	// registry.KindAgent when empty, registry.KindSkill or
	// registry.KindWorkflow. Base is the pages' URL prefix ("/agents" when
	// empty, "/skills", "/workflows"): the history of NAME is
	// BASE/NAME/history.
	Kind, Base string
	// Editor is what follows BASE/NAME in the URL of the file's editor:
	// "" where that page is the editor (agents, skills), "/edit" for a
	// workflow.
	Editor string
	// Param is the route parameter that names the file ("name" when
	// empty).
	Param string
	// Current finds the file that serves a name now, for a kind other
	// than agents (whose file is read from Agents, AgentsDir and Files).
	Current func(name string) (File, bool)
	// Gone, when set, finds the file that was at a name's address when
	// Current finds none: its Name (what its versions are listed under)
	// and Path, or a File without a Name when there was none (the pages
	// are then not found). Without it the versions of a name with no file
	// are those listed under the name itself. Workflows need it: their
	// pages are addressed by the file's stem, their versions listed by the
	// workflow's name, which may be another file's stem.
	Gone func(ctx context.Context, name string) (File, error)
}

// File is the file that serves a name now.
type File struct {
	// Name is what the file's versions are listed under, when that is not
	// the name in the URL: a workflow's page is named by its file's stem,
	// its versions by its workflow's name.
	Name string
	Path string // relative to Dir
	Hash string
	Data []byte
	// Dir is its folder on disk, whose git repository the page reads.
	Dir string
	// Files saves a restore into Dir; nil: this server cannot.
	Files Files
}

// Pages serves the history of one kind of file.
type Pages struct{ cfg Config }

// New builds the history pages.
func New(cfg Config) *Pages {
	cfg.Kind, cfg.Base, cfg.Param = cmp.Or(cfg.Kind, registry.KindAgent), cmp.Or(cfg.Base, "/agents"), cmp.Or(cfg.Param, "name")
	if cfg.Current == nil {
		cfg.Current = cfg.agentFile
	}
	return &Pages{cfg: cfg}
}

// runsPerVersion is how many runs each version lists by name.
const runsPerVersion = 5

// usesScanned is how many of a file's newest runs the page looks at.
const usesScanned = 500

// gitCommits is how many commits of the file the page lists.
const gitCommits = 30

// History is GET /agents/:name/history.
func (p *Pages) History(c echo.Context) error { return p.page(c, http.StatusOK, refusal{}) }

// refusal is why a restore was refused (none: a zero refusal) and the file
// it would have written.
type refusal struct{ message, path string }

// page is the History page as it is now, with status. After a refusal its
// restore forms expect the file as it is on disk, which refused the
// restore, not as the folder's watcher last saw it: the watcher may not
// have seen the write that changed it yet.
func (p *Pages) page(c echo.Context, status int, refused refusal) error {
	name := c.Param(p.cfg.Param)
	ctx := c.Request().Context()
	file, ok, err := p.current(ctx, name)
	if err != nil {
		return err
	}
	if refused.path != "" {
		if hash, known := diskHash(p.gitDir(file), refused.path); known {
			file.Hash = hash
		}
	}
	_, runsRecord := trace.VersionSpans[p.cfg.Kind]
	v := View{Name: name, Base: p.cfg.Base, Editor: p.cfg.Editor, Runs: runsRecord, Restored: c.QueryParam("restored"),
		Conflict: refused.message, CSRF: core.CSRFToken(c), CanRestore: p.writer(file) != nil, Path: file.Path, CurrentHash: file.Hash}
	if p.cfg.Versions == nil {
		v.Off = true
		return core.Render(c, status, Page(core.Page(c, "History · "+name, p.cfg.Base), v))
	}
	list, err := p.cfg.Versions.Versions(ctx, p.cfg.Kind, file.Name)
	if err != nil {
		return fmt.Errorf("history of %s: %w", name, err)
	}
	if len(list) == 0 && !ok {
		return core.NotFound(p.cfg.Kind, name)
	}
	var uses []trace.VersionUse
	if v.Runs { // runs record the versions of agents and workflows, not skills
		if uses, err = p.cfg.Versions.VersionUses(ctx, p.cfg.Kind, file.Name, usesScanned); err != nil {
			return fmt.Errorf("runs of %s: %w", name, err)
		}
	}
	v.Versions = rows(list, uses, file.Hash)
	if v.Path == "" && len(list) > 0 {
		v.Path = list[0].Path
	}
	v.Git, v.GitNote = p.commits(p.gitDir(file), v.Path)
	return core.Render(c, status, Page(core.Page(c, "History · "+name, p.cfg.Base), v))
}

// current is the file serving name now, named as its versions are; or,
// when there is none, the file that was there (Config.Gone).
func (p *Pages) current(ctx context.Context, name string) (File, bool, error) {
	f, ok := p.cfg.Current(name)
	if !ok && p.cfg.Gone != nil && p.cfg.Versions != nil {
		gone, err := p.cfg.Gone(ctx, name)
		switch {
		case err != nil:
			return f, false, fmt.Errorf("history of %s: %w", name, err)
		case gone.Name == "":
			return f, false, core.NotFound(p.cfg.Kind, name)
		}
		f.Name, f.Path = gone.Name, gone.Path
	}
	f.Name = cmp.Or(f.Name, name)
	return f, ok, nil
}

// existing is current, or a not-found error when name has neither a file
// now nor versions: nothing of that name ever was.
func (p *Pages) existing(ctx context.Context, name string) (File, bool, error) {
	file, ok, err := p.current(ctx, name)
	if err != nil || ok || p.cfg.Versions == nil {
		return file, ok, err
	}
	list, err := p.cfg.Versions.Versions(ctx, p.cfg.Kind, file.Name)
	switch {
	case err != nil:
		return file, false, fmt.Errorf("history of %s: %w", name, err)
	case len(list) == 0:
		return file, false, core.NotFound(p.cfg.Kind, name)
	}
	return file, false, nil
}

// agentFile is the agent file serving name now.
func (cfg Config) agentFile(name string) (File, bool) {
	snap := cfg.Agents.Snapshot()
	a, ok := snap.Agent(name)
	if !ok {
		return File{}, false
	}
	f, ok := snap.File(a.File)
	data, _ := snap.Raw(f.Path)
	return File{Path: f.Path, Hash: f.Hash, Data: data, Dir: cfg.AgentsDir, Files: cfg.Files}, ok
}

// writer saves a restore: into the file now, else (an agent's file was
// deleted) into the agents folder.
func (p *Pages) writer(f File) Files {
	if f.Files != nil {
		return f.Files
	}
	return p.cfg.Files
}

func (p *Pages) gitDir(f File) string { return cmp.Or(f.Dir, p.cfg.AgentsDir) }

// diskHash is the hash of the file at path in the folder dir as it is now,
// "" when there is none; known is false when the page cannot look (no
// folder on disk, as in tests of an in-memory one).
func diskHash(dir, path string) (hash string, known bool) {
	if dir == "" {
		return "", false
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", false
	}
	defer root.Close()
	data, err := registry.ReadLimited(root.FS(), filepath.ToSlash(path))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", true
	case err != nil:
		return "", false
	}
	return registry.Hash(data), true
}

// rows are the versions as the page lists them, each with its runs.
func rows(list []trace.Version, uses []trace.VersionUse, current string) []VersionRow {
	runs := trace.UsesByVersion(list, uses)
	out := make([]VersionRow, len(list))
	for i, v := range list {
		r := VersionRow{Hash: v.Hash, Short: trace.ShortHash(v.Hash), Time: when(v), Source: v.Source,
			Summary: v.Summary, Deleted: v.Deleted, Current: i == 0 && v.Hash == current && !v.Deleted, RunCount: len(runs[i])}
		for _, u := range runs[i][:min(len(runs[i]), runsPerVersion)] {
			r.Runs = append(r.Runs, RunLink{ID: u.RunID, Short: u.RunID[:min(8, len(u.RunID))], Status: string(u.Status)})
		}
		out[i] = r
	}
	return out
}

// commits are the git commits of the file at path in dir, or why there are
// none.
func (p *Pages) commits(dir, path string) ([]CommitRow, string) {
	if dir == "" || path == "" {
		return nil, ""
	}
	cs, err := git.History(dir, path, gitCommits)
	switch {
	case errors.Is(err, git.ErrNoRepository):
		return nil, ""
	case err != nil:
		p.cfg.Log.Warn("git history", "path", path, "err", err)
		return nil, "The git history of this file could not be read: " + err.Error()
	}
	out := make([]CommitRow, len(cs))
	for i, c := range cs {
		out[i] = CommitRow{Hash: c.Hash, Short: c.Hash[:12], Time: c.Time.Local().Format("2006-01-02 15:04"),
			Author: c.Author, Message: c.Message, Deleted: c.Content == nil}
	}
	return out, ""
}

func when(v trace.Version) string { return v.Time.Local().Format("2006-01-02 15:04:05") }

// Restore is POST /agents/:name/history/restore: version hash written back
// to the agent's file, if the file is still what the page showed
// (file_hash), recorded as a version "restore of …". Else the answer is the
// History page as it is now (409), whose restore buttons carry the file's
// new hash: the person sees what changed and may restore on purpose.
func (p *Pages) Restore(c echo.Context) error {
	name := c.Param(p.cfg.Param)
	file, _, err := p.existing(c.Request().Context(), name)
	if err != nil {
		return err
	}
	w := p.writer(file)
	if p.cfg.Versions == nil || w == nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "This server cannot restore versions.")
	}
	v, err := p.cfg.Versions.Version(c.Request().Context(), p.cfg.Kind, file.Name, c.FormValue("hash"))
	if err != nil {
		return core.AsMissing(fmt.Errorf("restore %s: %w", name, err), "version", c.FormValue("hash"))
	}
	path := cmp.Or(file.Path, v.Path) // the file now, or the gone one's (Gone), or where the version was
	if _, err := w.WriteNoted(path, v.Content, c.FormValue("file_hash"), "restore of "+trace.ShortHash(v.Hash)); err != nil {
		if errors.Is(err, registry.ErrConflict) || errors.Is(err, registry.ErrExists) {
			return p.page(c, http.StatusConflict, refusal{path: path,
				message: "Not restored: " + path + " changed since the page was opened. The list below is as it is now: compare with the current file, and restore again if you still want to."})
		}
		return fmt.Errorf("restore %s: %w", name, err)
	}
	return c.Redirect(http.StatusSeeOther, historyURL(p.cfg.Base, name)+"?restored="+trace.ShortHash(v.Hash))
}

// Diff is GET /agents/:name/history/diff?a=…&b=…: two versions side by
// side. Each side is a version hash (or prefix), "git:COMMIT", or
// "current" (the file as it is now).
func (p *Pages) Diff(c echo.Context) error {
	name := c.Param(p.cfg.Param)
	ctx := c.Request().Context()
	file, ok, err := p.existing(ctx, name)
	if err != nil {
		return err
	}
	a, err := p.side(ctx, file, ok, c.QueryParam("a"))
	if err != nil {
		return fmt.Errorf("diff of %s: %w", name, err)
	}
	b, err := p.side(ctx, file, ok, c.QueryParam("b"))
	if err != nil {
		return fmt.Errorf("diff of %s: %w", name, err)
	}
	v := DiffView{Name: name, Base: p.cfg.Base, A: a.Side, B: b.Side, Sections: sideBySide(a.path, a.data, b.data)}
	return core.Render(c, http.StatusOK, DiffPage(core.Page(c, "Diff · "+name, p.cfg.Base), v))
}

// side is one side of a diff and its content.
type side struct {
	Side
	path string
	data []byte
}

// side is the side ref of a diff of file (ok: the file serving its name
// now; else the one that was there).
func (p *Pages) side(ctx context.Context, file File, ok bool, ref string) (side, error) {
	switch {
	case ref == "" || ref == "current":
		if !ok {
			return side{}, core.NotFound("current file of "+p.cfg.Kind, file.Name)
		}
		return side{Side{Label: "current file", Ref: "current", Hash: file.Hash}, file.Path, file.Data}, nil
	case strings.HasPrefix(ref, "git:"):
		cs, err := git.History(p.gitDir(file), file.Path, gitCommits)
		if err != nil {
			return side{}, err
		}
		for _, c := range cs {
			if strings.HasPrefix(c.Hash, strings.TrimPrefix(ref, "git:")) && len(ref) > len("git:")+3 {
				return side{Side{Label: "commit " + c.Hash[:12] + " · " + c.Message, Ref: ref, Hash: c.Hash}, file.Path, c.Content}, nil
			}
		}
		return side{}, core.NotFound("commit", strings.TrimPrefix(ref, "git:"))
	}
	if p.cfg.Versions == nil {
		return side{}, echo.NewHTTPError(http.StatusServiceUnavailable, "This server keeps no versions.")
	}
	v, err := p.cfg.Versions.Version(ctx, p.cfg.Kind, file.Name, ref)
	if err != nil {
		return side{}, core.AsMissing(err, "version", ref)
	}
	return side{Side{Label: "version " + trace.ShortHash(v.Hash) + " · " + when(v) + " · " + v.Source, Ref: v.Hash, Hash: v.Hash}, v.Path, v.Content}, nil
}
