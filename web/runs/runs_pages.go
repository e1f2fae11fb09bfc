package runs

import (
	"log/slog"
	"net/http"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/web/core"
)

// Agents is the live set of agents the runs pages offer and filter by.
// *registry.Registry satisfies it; Snapshot must be cheap and safe for
// concurrent use.
type Agents interface {
	Snapshot() *registry.Snapshot
}

// Config is what the runs pages need. Agents, Log, Now and Stop are required;
// Store and Runner may be nil (the pages then say what is missing).
type Config struct {
	Agents       Agents
	Store        RunStore
	Runner       Runner
	Models       []string // the configured model choices besides the default
	DefaultModel string   // preselected in the start form; "" means "demo"
	// ScriptDir is the only folder script:NAME models may come from; "" turns
	// script models off in the start form.
	ScriptDir string
	// Approvals renders a run's "Waiting for approval" section; nil shows none.
	Approvals ApprovalSection
	// Live holds the runs this server started, shared with the server's
	// other edges (the API, MCP, A2A) so Cancel reaches theirs too; nil
	// makes one of the pages' own.
	Live *core.Live
	Log  *slog.Logger
	Now  func() time.Time
	Stop <-chan struct{} // closed when the server shuts down
}

// Pages serves everything under /runs: the list, the start form, the
// timeline with its live stream and details, cancel and export. It holds
// the runs this server started so Cancel can reach them.
type Pages struct {
	agents    Agents
	store     RunStore
	runner    Runner
	live      *core.Live
	models    core.Models
	log       *slog.Logger
	now       func() time.Time
	stop      <-chan struct{}
	poll      time.Duration
	tallies   *lru.Cache[string, runTally]
	layouts   layouts
	approvals ApprovalSection
}

// New builds the runs pages.
func New(cfg Config) *Pages {
	model := cfg.DefaultModel
	if model == "" {
		model = "demo"
	}
	if cfg.Live == nil {
		cfg.Live = core.NewLive(cfg.Stop)
	}
	tallies, _ := lru.New[string, runTally](maxTallies) // fails only for a size below 1
	return &Pages{
		agents: cfg.Agents, store: cfg.Store, runner: cfg.Runner, live: cfg.Live,
		models: core.Models{Configured: cfg.Models, Default: model, ScriptDir: cfg.ScriptDir}, log: cfg.Log, now: cfg.Now, stop: cfg.Stop, poll: pollInterval,
		approvals: cfg.Approvals, tallies: tallies,
	}
}

// Models are the models the start form offers and accepts; other start
// forms (a workflow's) offer the same.
func (rp *Pages) Models() core.Models { return rp.models }

// needStore answers 503 when the server has no trace store.
func (rp *Pages) needStore() error {
	if rp.store == nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, errRunsOff.Error())
	}
	return nil
}
