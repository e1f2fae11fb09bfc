package agents

import (
	"log/slog"
	"slices"

	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
)

// Catalog is the live set of agents the pages show. *registry.Registry satisfies it.
//
// Snapshot must be cheap and safe for concurrent use; the pages call it once
// per request and never mutate what it returns. Subscribe's channel receives
// a value (coalesced) after each change until the returned func is called.
type Catalog interface {
	Snapshot() *registry.Snapshot
	Subscribe() (<-chan struct{}, func())
}

// Files writes agent files. *folder.Folder satisfies it.
//
// Paths are relative to the agents folder and slash-separated. expectHash is
// the registry.Hash of the content the user started from ("" when creating);
// a mismatch returns registry.ErrConflict, an escaping path ErrInvalidPath,
// creating over an existing file ErrExists.
type Files interface {
	Write(path string, data []byte, expectHash string) (string, error)
	Rename(oldPath, newPath, expectHash string) error
	Delete(path, expectHash string) error
}

// Config is what the agents pages need; Agents and Files are required.
type Config struct {
	Agents     Catalog
	Files      Files
	Global     permissions.Rules      // the global tool level of every permission chain
	Delegation permissions.Delegation // run-wide delegation policy
	Models     []string               // suggestions for the editor's model field
	// Unavailable maps built-in tools that cannot run here to why not.
	Unavailable map[string]string
	// ModelProblems, when set, warns about an agent whose model cannot be
	// used here (it will run on the default model); shown with the file's
	// own problems.
	ModelProblems func(registry.Agent) []registry.Problem
	// Remote are the agents that run elsewhere, delegation targets beside
	// the files' agents on the graph and in the explorer.
	Remote []registry.RemoteTarget
	Log    *slog.Logger    // never nil
	Stop   <-chan struct{} // closed when the server shuts down
}

// Pages serves the agents list, the editor, the delegation graph, the
// Permissions explorer and the registry's change stream.
type Pages struct {
	cfg  Config
	log  *slog.Logger
	stop <-chan struct{}
}

// New builds the agents pages.
func New(cfg Config) *Pages { return &Pages{cfg: cfg, log: cfg.Log, stop: cfg.Stop} }

// problemsOf is a file's problems plus, for the agent it serves, the
// warning that its model falls back to the default here.
func (s *Pages) problemsOf(snap *registry.Snapshot, f registry.File) []registry.Problem {
	if s.cfg.ModelProblems == nil {
		return f.Problems
	}
	a, ok := snap.Agent(f.Agent)
	if !ok || a.File != f.Path {
		return f.Problems
	}
	return append(slices.Clip(f.Problems), s.cfg.ModelProblems(a)...)
}
