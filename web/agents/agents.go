package agents

import (
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/registry"

	"github.com/agentry/agentry/web/core"
)

// AgentsView is the agents list, shaped like the screen.
type AgentsView struct {
	Query   string
	Rows    []AgentRow
	Total   int    // files in the folder, before the search
	Broken  int    // files in the folder with errors, before the search
	Version string // the registry's version: htmx's refresh compares it, people are not shown it
	CSRF    string
}

// AgentRow is one line of the agents list: one agent file.
type AgentRow struct {
	Key         string // the name the row's links and test ids use
	Name        string
	Display     string // the file's name: when it is not the id ("C# Expert")
	File        string
	Plugin      string // the installed plugin the agent comes from ("" for the agents folder's)
	Description string
	Model       string
	Status      string // "ok", "warning" or "broken"
	Problems    []ProblemView
	Enabled     bool
	Stale       bool
	Toggle      bool // the file parses, so enabled can be switched here
	Href        string
	Hash        string
}

// Row statuses.
const (
	statusOK      = "ok"
	statusWarning = "warning"
	statusBroken  = "broken"
)

// List renders the list; with ?partial=table only the table, for htmx.
func (s *Pages) List(c echo.Context) error {
	// FormValue: a toggle posts the search box with its form (hx-include),
	// and the table it gets back keeps the search.
	v := s.agentsView(s.cfg.Agents.Snapshot(), c.FormValue("q"))
	v.CSRF = core.CSRFToken(c)
	if c.QueryParam("partial") == "table" || core.IsHTMX(c) {
		return core.Render(c, http.StatusOK, AgentsTable(v))
	}
	return core.Render(c, http.StatusOK, AgentsPage(core.Page(c, "Agents", "/agents"), v))
}

// agentsView builds the list from a snapshot, keeping rows that match query.
func (s *Pages) agentsView(snap *registry.Snapshot, query string) AgentsView {
	files := snap.Files()
	v := AgentsView{Query: strings.TrimSpace(query), Total: len(files), Version: strconv.FormatUint(snap.Version(), 10)}
	q := strings.ToLower(v.Query)
	v.Rows = make([]AgentRow, 0, len(files))
	for _, f := range files {
		f.Problems = s.problemsOf(snap, f)
		r := agentRow(snap, f)
		if r.Status == statusBroken {
			v.Broken++
		}
		if q == "" || r.matches(q) {
			v.Rows = append(v.Rows, r)
		}
	}
	// People look for an agent by its name; the file is the tie-break.
	slices.SortStableFunc(v.Rows, func(a, b AgentRow) int {
		return cmp.Or(strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), strings.Compare(a.Name, b.Name), strings.Compare(a.File, b.File))
	})
	return v
}

func agentRow(snap *registry.Snapshot, f registry.File) AgentRow {
	key := cmp.Or(f.Agent, registry.NameFromFile(f.Path))
	r := AgentRow{Key: key, Name: key, File: f.Path, Plugin: f.Plugin, Status: fileStatus(f.Problems), Problems: problemViews(f.Problems),
		Stale: f.Stale, Hash: f.Hash, Href: hrefFor(snap, f), Enabled: true}
	if a, ok := snap.Agent(f.Agent); ok && a.File == f.Path {
		r.Description, r.Model, r.Enabled, r.Display = a.Description, a.Model, a.Enabled, a.DisplayName
		r.Toggle = !f.Stale
	}
	if r.Model == "" {
		r.Model = "default"
	}
	return r
}

// fileStatus sums up a file's problems as one word.
func fileStatus(ps []registry.Problem) string {
	status := statusOK
	for _, p := range ps {
		if p.Severity == registry.SeverityError {
			return statusBroken
		}
		status = statusWarning
	}
	return status
}

func (r AgentRow) matches(q string) bool {
	for _, s := range []string{r.Name, r.Display, r.Description, r.Model, r.File, r.Status} {
		if strings.Contains(strings.ToLower(s), q) {
			return true
		}
	}
	return false
}
