package runs

import (
	"fmt"
	"slices"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// This file holds the run page's parts for issue 28: the version of each
// agent's file the run ran with, the mark on rows whose agent has changed
// since, why the run was made (a replay, an eval case), and the links to
// compare it with another run or add it to an eval suite.

// AgentVersion is the version of one agent's file a run ran with.
type AgentVersion struct {
	Agent, Version string
}

// Short is the version as the page shows it.
func (v AgentVersion) Short() string { return trace.ShortHash(v.Version) }

// RunTags say why a run was made, from its root span: the run a replay
// replays, the eval and case a run was made for.
type RunTags struct {
	ReplayOf            string
	EvalSuite, EvalCase string
}

// versionsOf lists each agent's version in order of first invocation; an
// agent that ran at two versions (runs that outlive a change, under a
// durable engine) is listed once per version.
func versionsOf(rows []*TimelineRow) []AgentVersion {
	var out []AgentVersion
	for _, r := range rows {
		if r.Version == "" {
			continue
		}
		v := AgentVersion{r.Agent, r.Version}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func tagsOf(spans []trace.Span) RunTags {
	for _, sp := range spans {
		if sp.ParentID != "" {
			continue
		}
		str := func(k string) string {
			if v, ok := sp.Attributes[k]; ok && v != nil {
				return fmt.Sprint(v)
			}
			return ""
		}
		return RunTags{ReplayOf: str(semconv.AttrReplayOf), EvalSuite: str(semconv.AttrEvalSuite), EvalCase: str(semconv.AttrEvalCase)}
	}
	return RunTags{}
}

// changedSince are the agents of the run whose file serves another
// version now (or no longer exists).
func (rp *Pages) changedSince(tl *Timeline) map[string]bool {
	if len(tl.Versions) == 0 || rp.agents == nil {
		return nil
	}
	snap := rp.agents.Snapshot()
	out := map[string]bool{}
	for _, v := range tl.Versions {
		if a, ok := snap.Agent(v.Agent); !ok || a.Version != v.Version {
			out[v.Agent] = true
		}
	}
	return out
}
