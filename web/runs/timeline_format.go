package runs

import (
	"fmt"
	"slices"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// tickSteps are the axis spacings a reader finds natural, smallest first.
var tickSteps = []time.Duration{
	time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond,
	10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

// maxTickLeft keeps a label from running off the right edge of the axis.
const maxTickLeft = 92.0

// maxTicks bounds the labels on the axis so they do not overlap even in the
// narrow waterfall column of a small window (about 300 px).
const maxTicks = 6

// ticks marks the axis at the smallest natural step that needs at most
// maxTicks labels.
func ticks(total time.Duration) []Tick {
	step := tickSteps[len(tickSteps)-1]
	for _, s := range tickSteps {
		if total/s < maxTicks {
			step = s
			break
		}
	}
	var out []Tick
	for t := time.Duration(0); t < total; t += step {
		if p := pct(t, total); p <= maxTickLeft {
			out = append(out, Tick{Label: formatDuration(t), Left: p})
		}
	}
	return out
}

// formatDuration writes a duration the way the timeline shows it: "0 ms",
// "593 µs", "450 ms", "2.35 s", "1m 05s", "2h 03m". Under a millisecond
// it counts microseconds, as `agentry traces show` does: a run of the
// script model takes that long, and "0 ms" read as if it took no time.
func formatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0 ms"
	case d < time.Millisecond:
		return fmt.Sprintf("%d µs", max(d.Microseconds(), 1))
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm %02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh %02dm", int(d.Hours()), int(d.Minutes())%60)
}

// formatTokens writes token usage as "50 in / 8 out", or "" when there is none.
func formatTokens(in, out int64) string {
	if in == 0 && out == 0 {
		return ""
	}
	return fmt.Sprintf("%d in / %d out", in, out)
}

// shortTokens writes token usage compactly for the narrow rollup column:
// "15.0k / 5.0k" (input / output), or "" when there is none.
func shortTokens(in, out int64) string {
	if in == 0 && out == 0 {
		return ""
	}
	return shortCount(in) + " / " + shortCount(out)
}

func shortCount(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1_000_000)
}

// formatTime writes a timestamp for people, in UTC so every reader agrees.
func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// headerOf summarises a run for the top of its timeline.
func headerOf(run trace.Run, total time.Duration) RunHeader {
	return RunHeader{
		ID: run.ID, Agent: run.Agent, Task: run.Task, Model: run.Model,
		Status: run.Status, Live: !run.Status.IsFinal(),
		Started:  formatTime(run.StartedAt),
		Duration: formatDuration(total),
		Tokens:   formatTokens(run.InputTokens, run.OutputTokens),
		Agents:   run.Agents,
		Result:   run.Result, Error: run.Error,
	}
}

// rollupOf sums the rows per agent, in the order agents first appear. It
// counts from the rows rather than the store's rollup so a running agent's
// time is its time so far (its row ends at the axis end) and "not ok" is
// counted as everywhere else on the page (NotOK).
// maxRollup is how many lines the rollup has at most.
const maxRollup = 40

func rollupOf(rows []*TimelineRow) []RollupRow {
	type sums struct {
		inv, calls, notOK int
		d                 time.Duration
		in, out, cached   int64
	}
	var order []string
	by := map[string]*sums{}
	for _, r := range rows {
		if r.Group != nil || r.Kind == trace.KindInvokeWorkflow || r.Kind == trace.KindWorkflowStep {
			continue // groups are counted through their members; a workflow and its steps are not agents
		}
		s, ok := by[r.Agent]
		if !ok {
			s = &sums{}
			by[r.Agent] = s
			order = append(order, r.Agent)
		}
		switch r.Kind {
		case trace.KindInvokeAgent:
			s.inv++
			s.d += r.end.Sub(r.start)
		case trace.KindChat, trace.KindExecuteTool:
			s.calls++
		}
		s.in += r.in
		s.out += r.out
		s.cached += r.cached
		if NotOK(r.Status) {
			s.notOK++
		}
	}
	// A run of thousands of agents (a deep chain) folds the rest into one
	// line, so the table stays small and its columns still add up.
	var other string
	if len(order) > maxRollup {
		rest := &sums{}
		for _, a := range order[maxRollup-1:] {
			s := by[a]
			rest.inv, rest.calls, rest.notOK = rest.inv+s.inv, rest.calls+s.calls, rest.notOK+s.notOK
			rest.d, rest.in, rest.out, rest.cached = rest.d+s.d, rest.in+s.in, rest.out+s.out, rest.cached+s.cached
		}
		other = fmt.Sprintf("%d other agents", len(order)-maxRollup+1)
		order = append(order[:maxRollup-1], other)
		by[other] = rest
	}
	out := make([]RollupRow, len(order))
	for i, a := range order {
		s := by[a]
		out[i] = RollupRow{Agent: a, Invocations: s.inv, Calls: s.calls, Time: formatDuration(s.d),
			Tokens: shortTokens(s.in, s.out), NotOK: s.notOK, Folded: other != "" && a == other, CacheHits: cacheHits(s.cached, s.in)}
	}
	return out
}

// attrCachedInputTokens is a chat span's prompt-cache reads.
const attrCachedInputTokens = semconv.AttrCachedInputTokens

// cacheHits is cached input tokens as a share of all input tokens: "62%",
// or "" when none were cached.
func cacheHits(cached, in int64) string {
	if cached <= 0 || in <= 0 {
		return ""
	}
	return fmt.Sprintf("%d%%", (cached*100+in/2)/in)
}

// anyCost reports whether any agent's calls were priced: the rollup shows
// its Cost column only then, as the panel is narrow.
func anyCost(rows []RollupRow) bool {
	return slices.ContainsFunc(rows, func(r RollupRow) bool { return r.Cost != "" })
}
