package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/web/core"
)

// AgentFile is one agent file as the registry holds it: the agent it
// serves (absent when the file is broken and never loaded), its hash for
// the next write, and its problems.
type AgentFile struct {
	Path        string             `json:"path" doc:"Relative to the agents folder"`
	Hash        string             `json:"hash" doc:"The content's hash: send it back to update or delete the file (compare-and-swap)"`
	Name        string             `json:"name,omitempty" doc:"The agent's id, absent when the file never loaded"`
	DisplayName string             `json:"display_name,omitempty"`
	Description string             `json:"description,omitempty"`
	Enabled     bool               `json:"enabled"`
	Model       string             `json:"model,omitempty"`
	Stale       bool               `json:"stale,omitempty" doc:"The file is broken and its last good version is served"`
	Problems    []registry.Problem `json:"problems"`
}

// AgentDetail is an agent file with its text.
type AgentDetail struct {
	AgentFile
	Content string `json:"content" doc:"The file's text, as on disk"`
}

func fileView(snap *registry.Snapshot, f registry.File) AgentFile {
	v := AgentFile{Path: f.Path, Hash: f.Hash, Name: f.Agent, Stale: f.Stale, Problems: f.Problems}
	if v.Problems == nil {
		v.Problems = []registry.Problem{}
	}
	if a, ok := snap.Agent(f.Agent); ok && a.File == f.Path {
		v.DisplayName, v.Description, v.Enabled, v.Model = a.DisplayName, a.Description, a.Enabled, a.Model
	}
	return v
}

func detailOf(snap *registry.Snapshot, f registry.File) AgentDetail {
	raw, _ := snap.Raw(f.Path)
	return AgentDetail{AgentFile: fileView(snap, f), Content: string(raw)}
}

type agentsOut struct {
	Body struct {
		Agents []AgentFile `json:"agents" doc:"Every agent file, sorted by path"`
	}
}

type nameIn struct {
	Name string `path:"name" doc:"The agent's id (or the stem of a file that does not load)"`
}

type agentOut struct{ Body AgentDetail }

type createIn struct {
	Body struct {
		Content string `json:"content" minLength:"1" doc:"The whole file: frontmatter and prompt"`
		Path    string `json:"path,omitempty" doc:"Where to write it in the agents folder; default NAME.md after its name:"`
	}
}

type updateIn struct {
	Name string `path:"name"`
	Body struct {
		Content string `json:"content" minLength:"1"`
		Hash    string `json:"hash" minLength:"1" doc:"The hash of the version this edit started from (AgentFile.hash)"`
	}
}

type deleteIn struct {
	Name string `path:"name"`
	Hash string `query:"hash" required:"true" doc:"The hash of the version to delete"`
}

type validateIn struct {
	Body struct {
		Content string `json:"content" doc:"A file's text"`
		Path    string `json:"path,omitempty" doc:"Where it would be written; default new.md"`
	}
}

type validateOut struct {
	Body struct {
		Valid    bool               `json:"valid" doc:"No problem of severity error"`
		Problems []registry.Problem `json:"problems" doc:"Its own problems and those it would make (unknown sub-agents, cycles)"`
	}
}

type permissionsIn struct {
	Agent string   `query:"agent" required:"true" doc:"The agent whose effective tools and sub-agents to explain"`
	Via   []string `query:"via" explode:"false" doc:"Its ancestors on the delegation chain, root first (comma-separated)"`
}

type permissionsOut struct{ Body registry.Explanation }

func (a *API) agents(api huma.API) {
	huma.Register(api, op("listAgents", http.MethodGet, "/agents", "List the agent files", "agents"),
		func(ctx context.Context, _ *struct{}) (*agentsOut, error) {
			snap := a.cfg.Agents.Snapshot()
			out := &agentsOut{}
			out.Body.Agents = []AgentFile{}
			for _, f := range snap.Files() {
				out.Body.Agents = append(out.Body.Agents, fileView(snap, f))
			}
			return out, nil
		})
	huma.Register(api, op("getAgent", http.MethodGet, "/agents/{name}", "Get an agent file", "agents", http.StatusNotFound),
		func(ctx context.Context, in *nameIn) (*agentOut, error) {
			snap := a.cfg.Agents.Snapshot()
			f, err := a.file(snap, in.Name)
			if err != nil {
				return nil, err
			}
			return &agentOut{Body: detailOf(snap, f)}, nil
		})
	create := op("createAgent", http.MethodPost, "/agents", "Create an agent file", "agents", http.StatusConflict)
	create.DefaultStatus = http.StatusCreated
	huma.Register(api, create, func(ctx context.Context, in *createIn) (*agentOut, error) {
		return a.write(in.Body.Path, in.Body.Content, "")
	})
	huma.Register(api, op("updateAgent", http.MethodPut, "/agents/{name}",
		"Replace an agent file's text, if it is still the version read (hash)", "agents", http.StatusNotFound, http.StatusConflict),
		func(ctx context.Context, in *updateIn) (*agentOut, error) {
			f, err := a.file(a.cfg.Agents.Snapshot(), in.Name)
			if err != nil {
				return nil, err
			}
			return a.write(f.Path, in.Body.Content, in.Body.Hash)
		})
	del := op("deleteAgent", http.MethodDelete, "/agents/{name}", "Delete an agent file, if it is still the version read (hash)",
		"agents", http.StatusNotFound, http.StatusConflict)
	del.DefaultStatus = http.StatusNoContent
	huma.Register(api, del, func(ctx context.Context, in *deleteIn) (*struct{}, error) {
		f, err := a.file(a.cfg.Agents.Snapshot(), in.Name)
		if err != nil {
			return nil, err
		}
		if err := a.cfg.Files.Delete(f.Path, in.Hash); err != nil {
			return nil, fail(fmt.Errorf("delete %s: %w", f.Path, err))
		}
		core.AwaitFile(a.cfg.Agents, a.cfg.Stop, f.Path, "")
		return nil, nil
	})
	huma.Register(api, op("validateAgent", http.MethodPost, "/validate", "Check an agent file's text without saving it", "agents"),
		func(ctx context.Context, in *validateIn) (*validateOut, error) {
			p := in.Body.Path
			if p == "" {
				p = "new.md"
			}
			out := &validateOut{}
			out.Body.Problems = a.problems(p, in.Body.Content)
			out.Body.Valid = !hasError(out.Body.Problems)
			return out, nil
		})
	huma.Register(api, op("getPermissions", http.MethodGet, "/permissions",
		"Explain an agent's effective tools and sub-agents on a delegation chain", "agents", http.StatusNotFound),
		func(ctx context.Context, in *permissionsIn) (*permissionsOut, error) {
			snap, chain := a.cfg.Agents.Snapshot(), append(in.Via, in.Agent)
			e, err := snap.Explain(a.cfg.Global, a.cfg.Delegation, chain, a.cfg.Remote...)
			if err != nil {
				return nil, fail(core.AsMissingAgent(err, snap, chain, a.cfg.Remote))
			}
			return &permissionsOut{Body: e}, nil
		})
}

// file is the agent file name addresses, or a not_found error.
func (a *API) file(snap *registry.Snapshot, name string) (registry.File, error) {
	f, ok := snap.FileFor(name)
	if !ok {
		return f, fail(core.NotFound("agent", name))
	}
	return f, nil
}

// write saves content at p (a new file when hash is ""), after the checks
// the editor makes: text that does not parse, or that would have errors,
// is refused with its problems and nothing is written.
func (a *API) write(p, content, hash string) (*agentOut, error) {
	if p == "" {
		d, err := registry.Parse("new.md", []byte(content))
		if err != nil {
			return nil, refused(core.ProblemsOf(err))
		}
		ag, _ := d.Agent()
		if !registry.ValidName(ag.Name) {
			return nil, core.NewAPIError(http.StatusUnprocessableEntity, "give the file a path, or the agent a valid name: (1–64 of a-z 0-9 . _ -)")
		}
		p = ag.Name + ".md"
	}
	if path.Ext(p) != ".md" || strings.HasPrefix(p, "/") {
		return nil, core.NewAPIError(http.StatusBadRequest, fmt.Sprintf("path %q: an agent file is a .md path inside the agents folder", p))
	}
	if ps := a.problems(p, content); hasError(ps) {
		return nil, refused(ps)
	}
	newHash, err := a.cfg.Files.Write(p, []byte(content), hash)
	if err != nil {
		if errors.Is(err, registry.ErrConflict) {
			return nil, core.NewAPIError(http.StatusConflict, "the file changed since that version was read: get it again, reapply the edit, and send its new hash")
		}
		return nil, fail(fmt.Errorf("write %s: %w", p, err))
	}
	core.AwaitFile(a.cfg.Agents, a.cfg.Stop, p, newHash)
	snap := a.cfg.Agents.Snapshot()
	f, ok := snap.File(p)
	if !ok || f.Hash != newHash {
		f = registry.File{Path: p, Hash: newHash}
	}
	return &agentOut{Body: detailOf(snap, f)}, nil
}

// problems are the problems the text would have at p, its own and those
// it would make among the other files.
func (a *API) problems(p, content string) []registry.Problem {
	d, err := registry.Parse(p, []byte(content))
	if err != nil {
		return core.ProblemsOf(err)
	}
	ps := a.cfg.Agents.Snapshot().Check(p, d)
	if ps == nil {
		ps = []registry.Problem{}
	}
	return ps
}

// refused is the 422 of text with errors: each problem a detail.
func refused(ps []registry.Problem) error {
	var details []core.ErrorDetail
	for _, p := range ps {
		if p.Severity == registry.SeverityError {
			details = append(details, core.ErrorDetail{Location: fmt.Sprintf("body.content:%d", p.Line), Message: p.Message})
		}
	}
	return core.NewAPIError(http.StatusUnprocessableEntity, "the file has problems and was not saved", details...)
}

func hasError(ps []registry.Problem) bool {
	for _, p := range ps {
		if p.Severity == registry.SeverityError {
			return true
		}
	}
	return false
}
