package agents

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/web/core"
)

// Every file on disk can be opened from the UI. An agent is addressed by its
// name (/agents/NAME) when that name is usable: valid, not one of the
// editor's own routes, and naming this very file. Otherwise (a file too
// broken to name an agent, a name that is not valid, the second of two files
// with one name) the file is addressed by its path: /agents/file/PATH, and
// its actions by PATH/ACTION (/agents/file/sub/x.md/raw). An agent file's
// path always ends in .md, so the action after it is never ambiguous.

// fileKey is the context key under which the file routes pass the path.
const fileKey = "agents.file"

// reservedNames are agent names that are routes of the editor itself.
var reservedNames = []string{"new", "file"}

// fileHref is the address of a file by its path.
func fileHref(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "/agents/file/" + strings.Join(segs, "/")
}

// hrefFor is the address of a file: by its agent's name when usable, by
// its path otherwise.
func hrefFor(snap *registry.Snapshot, f registry.File) string {
	name := f.Agent
	if name != "" && registry.ValidName(name) && !isReserved(name) {
		if a, ok := snap.Agent(name); ok && a.File == f.Path {
			return agentHref(name)
		}
	}
	return fileHref(f.Path)
}

func isReserved(name string) bool {
	for _, r := range reservedNames {
		if r == name {
			return true
		}
	}
	return false
}

// splitAction splits "sub/x.md/raw" into the path and the action: a last
// segment that fileGets or filePosts serves.
func splitAction(p string) (path, action string) {
	i := strings.LastIndex(p, "/")
	if a := p[i+1:]; i >= 0 && a != "" && (fileGets[a] != nil || filePosts[a] != nil) {
		return p[:i], a
	}
	return p, ""
}

// filePath reads the path part of a /agents/file/ URL.
func filePath(c echo.Context) (string, string, error) {
	raw, err := url.PathUnescape(c.Param("*"))
	if err != nil {
		return "", "", echo.NewHTTPError(http.StatusBadRequest, "the file path in the address is not valid")
	}
	p, action := splitAction(raw)
	c.Set(fileKey, p)
	return p, action, nil
}

// fileGets and filePosts are what a file's address serves, by the action
// after its path ("" for the file itself: the editor and its form).
var (
	fileGets  = fileRoutes{"": (*Pages).Edit, "delete": (*Pages).DeleteConfirm}
	filePosts = fileRoutes{"": (*Pages).Save, "raw": (*Pages).SaveRaw, "enabled": (*Pages).Toggle,
		"rename": (*Pages).Rename, "delete": (*Pages).Delete}
)

// fileRoutes maps an action to the handler that serves it.
type fileRoutes map[string]func(*Pages, echo.Context) error

// FileGet serves GET /agents/file/PATH (the editor) and PATH/delete.
func (s *Pages) FileGet(c echo.Context) error { return s.serveFile(c, fileGets) }

// FilePost serves the editor's posts for a file addressed by its path.
func (s *Pages) FilePost(c echo.Context) error { return s.serveFile(c, filePosts) }

// serveFile serves the action a file's address names; an action the
// routes do not have is not found.
func (s *Pages) serveFile(c echo.Context, routes fileRoutes) error {
	_, action, err := filePath(c)
	if err != nil {
		return err
	}
	serve, ok := routes[action]
	if !ok {
		return core.ErrNotFound
	}
	return serve(s, c)
}

// requested is the file a request is about and the address it came by.
func requested(c echo.Context, snap *registry.Snapshot) (registry.File, string, error) {
	if p, ok := c.Get(fileKey).(string); ok {
		f, ok := snap.File(p)
		if !ok {
			return registry.File{}, "", core.NotFound("agent file", p)
		}
		return f, fileHref(p), nil
	}
	f, err := lookupFile(snap, c.Param("name"))
	if err != nil {
		return f, "", err
	}
	return f, hrefFor(snap, f), nil
}

// savedHref is where a save redirects: the file's address once the
// registry has seen it, so a name that became unusable still opens.
func (s *Pages) savedHref(path string) string {
	snap := s.cfg.Agents.Snapshot()
	if f, ok := snap.File(path); ok {
		return hrefFor(snap, f) + "?saved=1"
	}
	return "/agents"
}
