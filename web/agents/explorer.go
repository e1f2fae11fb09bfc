package agents

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/registry"

	"github.com/agentry/agentry/web/core"
)

// ExplorerView is the permissions explorer: a chain being built, and what the
// last agent on it may use and call, with the reason for each decision.
type ExplorerView struct {
	Chain    []ChainStep
	Next     []ChainOption // agents that can be appended to the chain
	Error    string
	Warnings []string // links of the chain that could not happen at run time
	Levels   []string // the levels of the explanation: global, root, …, agent
	Tools    []DecisionRow
	Targets  []DecisionRow
}

// ChainStep is one agent on the chain, with the link that cuts the chain
// back to before it.
type ChainStep struct {
	Name, CutHref string
}

// ChainOption is an agent offered as the next link, marked with whether the
// current last agent may delegate to it.
type ChainOption struct {
	Name    string
	Allowed bool
}

// DecisionRow is one tool or target with its verdict and reason.
type DecisionRow struct {
	Subject string
	Allowed bool
	Ask     bool // allowed only with a person's approval of each call
	Reason  string
	// Unavailable says why a built-in tool cannot run on this machine ("" when it can).
	Unavailable string
	// Remote is the agent card's URL of a target that runs elsewhere.
	Remote string
}

// Permissions renders the explorer for ?chain=root&chain=…&chain=agent. It
// uses Snapshot.Explain, the same logic as `agentry permissions`.
func (s *Pages) Permissions(c echo.Context) error {
	snap := s.cfg.Agents.Snapshot()
	chain := chainParam(c.QueryParams())
	v := ExplorerView{Chain: chainSteps(chain)}
	if len(chain) == 0 {
		for _, a := range snap.Agents() {
			v.Next = append(v.Next, ChainOption{Name: a.Name, Allowed: true})
		}
		return core.Render(c, http.StatusOK, ExplorerPage(core.Page(c, "Permissions", "/permissions"), v))
	}
	e, err := snap.Explain(s.cfg.Global, s.cfg.Delegation, chain, s.cfg.Remote...)
	if err != nil {
		err = core.AsMissingAgent(err, snap, chain, s.cfg.Remote)
		status := core.StatusOf(err)
		v.Error = core.MessageOf(err, status, "")
		return core.Render(c, status, ExplorerPage(core.Page(c, "Permissions", "/permissions"), v))
	}
	fillExplanation(&v, e, s.cfg.Unavailable)
	return core.Render(c, http.StatusOK, ExplorerPage(core.Page(c, "Permissions: "+e.Agent, "/permissions"), v))
}

// Verdict is the decision in one word: allow, ask (a person approves each
// call) or deny, as docs/approvals.md names the three.
func (r DecisionRow) Verdict() string {
	switch {
	case !r.Allowed:
		return "deny"
	case r.Ask:
		return "ask"
	}
	return "allow"
}

// fillExplanation copies an explanation into the view, marking tools that
// cannot run here; allowed targets are offered first as the next link. A
// remote target is no link: what it calls is its own server's.
func fillExplanation(v *ExplorerView, e registry.Explanation, unavailable map[string]string) {
	v.Levels, v.Warnings = e.Chain, e.Warnings
	for _, d := range e.Tools {
		v.Tools = append(v.Tools, DecisionRow{Subject: d.Tool, Allowed: d.Allowed, Ask: d.Ask, Reason: d.Reason, Unavailable: unavailable[d.Tool]})
	}
	var denied []ChainOption
	for _, d := range e.Subagents {
		v.Targets = append(v.Targets, DecisionRow{Subject: d.Agent, Allowed: d.Allowed, Ask: d.Ask, Reason: d.Reason, Remote: d.Remote})
		if d.Remote != "" {
			continue
		}
		if d.Allowed {
			v.Next = append(v.Next, ChainOption{Name: d.Agent, Allowed: true})
		} else {
			denied = append(denied, ChainOption{Name: d.Agent})
		}
	}
	v.Next = append(v.Next, denied...)
}

// chainParam reads the chain, root first, dropping empty entries: as the
// explorer's links write it (chain=root&chain=…&chain=agent), or as the
// JSON API's /permissions takes it (agent=AGENT&via=root,…), so one
// address shape serves both.
func chainParam(q url.Values) []string {
	names := q["chain"]
	if len(names) == 0 && q.Get("agent") != "" {
		names = append(strings.Split(q.Get("via"), ","), q.Get("agent"))
	}
	var out []string
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

func chainSteps(chain []string) []ChainStep {
	steps := make([]ChainStep, len(chain))
	for i, name := range chain {
		steps[i] = ChainStep{Name: name, CutHref: chainHref(chain[:i])}
	}
	return steps
}

// chainHref is the explorer's URL for a chain.
func chainHref(chain []string) string {
	if len(chain) == 0 {
		return "/permissions"
	}
	q := url.Values{"chain": chain}
	return "/permissions?" + q.Encode()
}

func joinArrow(levels []string) string { return strings.Join(levels, " → ") }
