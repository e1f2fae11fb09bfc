package skills

import (
	"context"
	"log/slog"

	"github.com/agentry/agentry/registry/plugin"
	"github.com/agentry/agentry/registry/skills"
)

// Library is the live skills and commands library; *skills.Catalog
// satisfies it. Each request reads its latest snapshot, so a page loaded
// after a change on disk shows it.
type Library interface {
	Snapshot() *skills.Library
}

// Files writes one library root's files; *folder.Folder satisfies it with
// its compare-and-swap (registry.ErrConflict when the file changed).
type Files interface {
	Write(path string, data []byte, expectHash string) (string, error)
}

// Plugins is the plugins folder; *plugin.Store satisfies it.
type Plugins interface {
	List() ([]plugin.Installed, error)
	Hooks(name string) ([]plugin.Hook, error)
	MCPServers(name string) ([]plugin.MCPServer, error)
	Enable(name string, hooks, mcp, on bool) error
}

// StartCommand starts a run of a slash command with its arguments and
// returns the run's id; serve runs it through the runs pages' Launch so the
// timeline's Cancel reaches it.
type StartCommand func(ctx context.Context, c skills.Command, args, model string) (string, error)

// Config is what the pages need; every field but Log may be nil: without
// Library the pages say there are no skills, without Files for a root its
// skills' editor is read-only, without Plugins the plugins page is empty,
// without Start the commands have no Run form.
type Config struct {
	Library Library
	// Files returns the writer of the root with that label, nil when the
	// root cannot be written.
	Files   func(rootLabel string) Files
	Plugins Plugins
	Start   StartCommand
	Log     *slog.Logger
}

// Pages serves /skills, /skills/ID and /plugins.
type Pages struct{ cfg Config }

// New builds the pages.
func New(cfg Config) *Pages { return &Pages{cfg: cfg} }

func (p *Pages) library() *skills.Library {
	if p.cfg.Library == nil {
		return skills.NewCatalog().Snapshot()
	}
	return p.cfg.Library.Snapshot()
}
