package history

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
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
	VersionUses(ctx context.Context, agent string, limit int) ([]trace.VersionUse, error)
}

// Files saves a restored version as the web's save does;
// *folder.Writer satisfies it.
type Files interface {
	WriteNoted(path string, data []byte, expectHash, note string) (string, error)
}

// Config is what the pages need. Agents is required; without Versions the
// pages say the store keeps none; without Files restore is off.
type Config struct {
	Agents   interface{ Snapshot() *registry.Snapshot }
	Versions Versions
	Files    Files
	// AgentsDir is the agents folder on disk, whose git repository (if it
	// is in one) the page reads commits from; "" reads none.
	AgentsDir string
	Log       *slog.Logger
}

// Pages serves an agent's history.
type Pages struct{ cfg Config }

// New builds the history pages.
func New(cfg Config) *Pages { return &Pages{cfg: cfg} }

// runsPerVersion is how many runs each version lists by name.
const runsPerVersion = 5

// usesScanned is how many of an agent's newest runs the page looks at.
const usesScanned = 500

// gitCommits is how many commits of the file the page lists.
const gitCommits = 30

// History is GET /agents/:name/history.
func (p *Pages) History(c echo.Context) error {
	name := c.Param("name")
	v := View{Agent: name, Restored: c.QueryParam("restored"), CSRF: core.CSRFToken(c), CanRestore: p.cfg.Files != nil}
	file, ok := p.current(name)
	v.Path, v.CurrentHash = file.Path, file.Hash
	if p.cfg.Versions == nil {
		v.Off = true
		return core.Render(c, http.StatusOK, Page(core.Page(c, "History · "+name, "/agents"), v))
	}
	ctx := c.Request().Context()
	list, err := p.cfg.Versions.Versions(ctx, registry.KindAgent, name)
	if err != nil {
		return fmt.Errorf("history of %s: %w", name, err)
	}
	if len(list) == 0 && !ok {
		return fmt.Errorf("agent %q: %w", name, core.ErrNotFound)
	}
	uses, err := p.cfg.Versions.VersionUses(ctx, name, usesScanned)
	if err != nil {
		return fmt.Errorf("runs of %s: %w", name, err)
	}
	v.Versions = rows(list, uses, file.Hash)
	if v.Path == "" && len(list) > 0 {
		v.Path = list[0].Path
	}
	v.Git, v.GitNote = p.commits(v.Path)
	return core.Render(c, http.StatusOK, Page(core.Page(c, "History · "+name, "/agents"), v))
}

// current is the file serving name now.
func (p *Pages) current(name string) (registry.File, bool) {
	snap := p.cfg.Agents.Snapshot()
	a, ok := snap.Agent(name)
	if !ok {
		return registry.File{}, false
	}
	return snap.File(a.File)
}

// rows are the versions as the page lists them, each with its runs.
func rows(list []trace.Version, uses []trace.VersionUse, current string) []VersionRow {
	byHash := map[string][]trace.VersionUse{}
	for _, u := range uses {
		byHash[u.Hash] = append(byHash[u.Hash], u)
	}
	out := make([]VersionRow, len(list))
	seen := map[string]bool{}
	for i, v := range list {
		r := VersionRow{Hash: v.Hash, Short: trace.ShortHash(v.Hash), Time: when(v), Source: v.Source,
			Summary: v.Summary, Deleted: v.Deleted, Current: i == 0 && v.Hash == current && !v.Deleted}
		if !seen[v.Hash] { // a hash restored later lists its runs once, at its newest
			seen[v.Hash] = true
			us := byHash[v.Hash]
			r.RunCount = len(us)
			for _, u := range us[:min(len(us), runsPerVersion)] {
				r.Runs = append(r.Runs, RunLink{ID: u.RunID, Short: u.RunID[:min(8, len(u.RunID))], Status: string(u.Status)})
			}
		}
		out[i] = r
	}
	return out
}

// commits are the git commits of the file, or why there are none.
func (p *Pages) commits(path string) ([]CommitRow, string) {
	if p.cfg.AgentsDir == "" || path == "" {
		return nil, ""
	}
	cs, err := git.History(p.cfg.AgentsDir, path, gitCommits)
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
// (file_hash), recorded as a version "restore of …".
func (p *Pages) Restore(c echo.Context) error {
	name := c.Param("name")
	if p.cfg.Versions == nil || p.cfg.Files == nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "This server cannot restore versions.")
	}
	v, err := p.cfg.Versions.Version(c.Request().Context(), registry.KindAgent, name, c.FormValue("hash"))
	if err != nil {
		return fmt.Errorf("restore %s: %w", name, err)
	}
	path := v.Path
	if file, ok := p.current(name); ok {
		path = file.Path
	}
	if _, err := p.cfg.Files.WriteNoted(path, v.Content, c.FormValue("file_hash"), "restore of "+trace.ShortHash(v.Hash)); err != nil {
		if errors.Is(err, registry.ErrConflict) || errors.Is(err, registry.ErrExists) {
			return echo.NewHTTPError(http.StatusConflict, "Not restored: "+path+" changed since this page was opened. Reload the history and restore again.")
		}
		return fmt.Errorf("restore %s: %w", name, err)
	}
	return c.Redirect(http.StatusSeeOther, "/agents/"+url.PathEscape(name)+"/history?restored="+trace.ShortHash(v.Hash))
}

// Diff is GET /agents/:name/history/diff?a=…&b=…: two versions side by
// side. Each side is a version hash (or prefix), "git:COMMIT", or
// "current" (the file as it is now).
func (p *Pages) Diff(c echo.Context) error {
	name := c.Param("name")
	ctx := c.Request().Context()
	a, err := p.side(ctx, name, c.QueryParam("a"))
	if err != nil {
		return fmt.Errorf("diff of %s: %w", name, err)
	}
	b, err := p.side(ctx, name, c.QueryParam("b"))
	if err != nil {
		return fmt.Errorf("diff of %s: %w", name, err)
	}
	v := DiffView{Agent: name, A: a.Side, B: b.Side, Sections: sideBySide(a.path, a.data, b.data)}
	return core.Render(c, http.StatusOK, DiffPage(core.Page(c, "Diff · "+name, "/agents"), v))
}

// side is one side of a diff and its content.
type side struct {
	Side
	path string
	data []byte
}

func (p *Pages) side(ctx context.Context, name, ref string) (side, error) {
	switch {
	case ref == "" || ref == "current":
		file, ok := p.current(name)
		if !ok {
			return side{}, fmt.Errorf("agent %q has no file now: %w", name, core.ErrNotFound)
		}
		data, _ := p.cfg.Agents.Snapshot().Raw(file.Path)
		return side{Side{Label: "current file", Ref: "current", Hash: file.Hash}, file.Path, data}, nil
	case strings.HasPrefix(ref, "git:"):
		file, _ := p.current(name)
		cs, err := git.History(p.cfg.AgentsDir, file.Path, gitCommits)
		if err != nil {
			return side{}, err
		}
		for _, c := range cs {
			if strings.HasPrefix(c.Hash, strings.TrimPrefix(ref, "git:")) && len(ref) > len("git:")+3 {
				return side{Side{Label: "commit " + c.Hash[:12] + " · " + c.Message, Ref: ref, Hash: c.Hash}, file.Path, c.Content}, nil
			}
		}
		return side{}, fmt.Errorf("commit %q of %s: %w", ref, file.Path, core.ErrNotFound)
	}
	if p.cfg.Versions == nil {
		return side{}, echo.NewHTTPError(http.StatusServiceUnavailable, "This server keeps no versions.")
	}
	v, err := p.cfg.Versions.Version(ctx, registry.KindAgent, name, ref)
	if err != nil {
		return side{}, err
	}
	return side{Side{Label: "version " + trace.ShortHash(v.Hash) + " · " + when(v) + " · " + v.Source, Ref: v.Hash, Hash: v.Hash}, v.Path, v.Content}, nil
}
