package workflows

import (
	"context"
	"log/slog"

	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/web/core"
)

// Catalog is the live set of workflows the pages show. *workflow.Catalog
// satisfies it: Snapshot is cheap and safe for concurrent use, Subscribe's
// channel receives a (coalesced) signal after each change, and Check
// validates content as it would be validated once saved.
type Catalog interface {
	Snapshot() *workflow.Set
	Subscribe() (<-chan struct{}, func())
	Check(path string, data []byte) workflow.Problems
}

// Files writes workflow files. *folder.Folder (over a workflow.Catalog)
// satisfies it: Write is a compare-and-swap on disk that returns
// registry.ErrConflict when the file no longer has expectHash, and has put
// the new content into the catalog when it returns.
type Files interface {
	Write(path string, data []byte, expectHash string) (string, error)
}

// RunRequest is a workflow run started from the browser (core.WorkflowRunRequest).
type RunRequest = core.WorkflowRunRequest

// Execution is a run in progress; *workflow.Execution satisfies it.
type Execution = core.Execution

// Runner starts workflow runs; serve adapts workflow.Start to it (core.WorkflowRunner).
type Runner = core.WorkflowRunner

// Launcher keeps a started run until it ends so the timeline's Cancel
// reaches it (the runs pages' Launch); start receives a context that lives
// as long as the server.
type Launcher func(start func(ctx context.Context) (Execution, error)) (string, error)

// Config is what the workflows pages need. Log and Stop are required;
// without Catalog the pages say the server has no workflows folder, without
// Files the editor is read-only, without Runner or Launch the start form
// says runs cannot start.
type Config struct {
	Catalog Catalog
	Files   Files
	Runner  Runner
	Launch  Launcher
	Models  core.Models
	Log     *slog.Logger
	Stop    <-chan struct{} // closed when the server shuts down
}

// Pages serves everything under /workflows.
type Pages struct {
	cfg Config
	log *slog.Logger
}

// New builds the workflows pages.
func New(cfg Config) *Pages { return &Pages{cfg: cfg, log: cfg.Log} }
