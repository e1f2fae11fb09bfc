package runs

import (
	"slices"
	"strings"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// BuildTimeline lays out a run's spans (in start order, as Store.Spans
// returns them) on a shared axis. now ends the axis while the run is going,
// so running spans grow towards it.
func BuildTimeline(run trace.Run, spans []trace.Span, now time.Time) Timeline {
	tl := Timeline{Big: len(spans) > VisibleRows, Spans: len(spans), run: run}
	invocations := 0
	tl.Axis = axisOf(run, spans, now)
	tl.Roots, tl.Rows, tl.byID = buildTree(spans, tl.Axis)
	for _, r := range tl.Roots {
		countSubtree(r)
	}
	markCritical(tl.Roots)
	if tl.Big {
		tl.CollapseLevel = collapseLevel(tl.Rows)
	}
	var first *TimelineRow
	for i, r := range tl.Rows {
		r.pos = i
		if r.Group != nil {
			tl.byID[r.ID] = r
			r.Collapsed = true
			continue
		}
		if NotOK(r.Status) {
			tl.NotOK++
		}
		if isJumpTarget(r) {
			tl.targets = append(tl.targets, r)
			if first == nil || r.start.Before(first.start) {
				first = r
			}
		}
		r.Collapsed = tl.Big && r.Level >= tl.CollapseLevel && len(r.Children) > 0
	}
	if first != nil {
		tl.FirstError = first.ID
	}
	tl.Axis.Ticks = ticks(tl.Axis.Total)
	tl.Run = headerOf(run, tl.Axis.Total)
	tl.Marks = marksOf(tl.Rows)
	if len(tl.Roots) > 0 && tl.Roots[0].Kind == trace.KindInvokeWorkflow {
		tl.Run.Workflow, tl.Run.Inputs = true, workflowInputs(run.Task)
	}
	// The run's own count is written as it goes and may lag (0 while the
	// first invocation runs); the spans laid out say how many there are.
	for _, sp := range spans {
		if sp.Kind == trace.KindInvokeAgent {
			invocations++
		}
	}
	tl.Run.Agents = max(tl.Run.Agents, invocations)
	tl.Run.Cost = formatCost(runCost(run, spans))
	tl.Rollup = rollupOf(tl.Rows)
	addCosts(tl.Rollup, spans)
	tl.Versions, tl.Tags = versionsOf(tl.Rows), tagsOf(spans)
	return tl
}

// collapseLevel is the deepest level whose rows, with every level above,
// fit in VisibleRows; never above level 1, so the root's children show.
func collapseLevel(rows []*TimelineRow) int {
	var perLevel []int
	for _, r := range rows {
		for len(perLevel) <= r.Level {
			perLevel = append(perLevel, 0)
		}
		perLevel[r.Level]++
	}
	level, shown := 1, perLevel[0]
	for l := 1; l < len(perLevel); l++ {
		shown += perLevel[l]
		if shown > VisibleRows {
			break
		}
		level = l
	}
	return level
}

// axisOf spans the run from its start (or its earliest span) to its end; a
// run still going ends at now, and a span that outlived the run's recorded
// end stretches the axis rather than spilling over it.
func axisOf(run trace.Run, spans []trace.Span, now time.Time) Axis {
	start, end := run.StartedAt, run.EndedAt
	if !run.Status.IsFinal() || end.IsZero() {
		end = now
	}
	for _, sp := range spans {
		if start.IsZero() || sp.StartedAt.Before(start) {
			start = sp.StartedAt
		}
		if sp.EndedAt.After(end) {
			end = sp.EndedAt
		}
	}
	total := end.Sub(start)
	if total <= 0 {
		total = time.Millisecond
	}
	return Axis{Start: start, Total: total}
}

// buildTree makes one row per span and links each to its parent. A span
// whose parent is missing (not recorded yet, or lost) becomes a root, so
// nothing recorded is ever hidden.
func buildTree(spans []trace.Span, ax Axis) (roots, flat []*TimelineRow, byID map[string]*TimelineRow) {
	byID = make(map[string]*TimelineRow, len(spans))
	rows := make([]TimelineRow, len(spans)) // one allocation for all rows
	for i := range spans {
		rows[i] = rowOf(spans[i], ax)
		byID[spans[i].ID] = &rows[i]
	}
	for i := range rows {
		r := &rows[i]
		if p, ok := byID[r.ParentID]; ok && p != r {
			p.Children = append(p.Children, r)
		} else {
			roots = append(roots, r)
		}
	}
	byStart := func(a, b *TimelineRow) int {
		if c := a.start.Compare(b.start); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	}
	slices.SortStableFunc(roots, byStart)
	for i := range rows {
		slices.SortStableFunc(rows[i].Children, byStart)
		groupChildren(&rows[i], ax)
	}
	flat = make([]*TimelineRow, 0, len(rows))
	placed := 0 // spans in flat, group rows not counted
	var walk func(r, parent *TimelineRow, level int)
	walk = func(r, parent *TimelineRow, level int) {
		r.Level, r.parent = level, parent
		flat = append(flat, r)
		if r.Group == nil {
			placed++
		}
		for _, c := range r.Children {
			walk(c, r, level+1)
		}
	}
	for _, r := range roots {
		walk(r, nil, 0)
	}
	if placed < len(rows) { // a parent cycle; show the rest as roots
		seen := make(map[*TimelineRow]bool, len(flat))
		for _, r := range flat {
			seen[r] = true
		}
		for i := range rows {
			if !seen[&rows[i]] {
				rows[i].Children = nil
				roots = append(roots, &rows[i])
				flat = append(flat, &rows[i])
			}
		}
	}
	return roots, flat, byID
}

// rowOf is a span placed on the axis.
func rowOf(sp trace.Span, ax Axis) TimelineRow {
	end := sp.EndedAt
	if end.IsZero() || !sp.Status.IsFinal() {
		end = ax.Start.Add(ax.Total)
	}
	if end.Before(sp.StartedAt) {
		end = sp.StartedAt
	}
	r := TimelineRow{
		ID: sp.ID, ParentID: sp.ParentID, Kind: sp.Kind, Name: rowName(sp),
		Agent: sp.Agent, Status: sp.Status, start: sp.StartedAt, end: end,
		in: sp.InputTokens, out: sp.OutputTokens, cached: int64(trace.NumberAttr(sp.Attributes, attrCachedInputTokens)),
		Left:  pct(sp.StartedAt.Sub(ax.Start), ax.Total),
		Width: pct(end.Sub(sp.StartedAt), ax.Total),
		Retry: intAttr(sp.Attributes, semconv.AttrRetryAttempt),
		deleg: isDelegation(sp),
	}
	if sp.Kind == trace.KindInvokeAgent {
		r.Version, _ = sp.Attributes[semconv.AttrAgentVersion].(string)
	}
	// The runtime measures queued_ms from the delegation's start to the
	// moment it got a slot, so the wait is the first part of the span: drawn
	// lighter, with the bar after it showing the work.
	if q := time.Duration(trace.NumberAttr(sp.Attributes, semconv.AttrQueuedMS) * float64(time.Millisecond)); q > 0 {
		q = min(q, end.Sub(sp.StartedAt))
		r.QueueLeft, r.QueueWidth = r.Left, pct(q, ax.Total)
		r.Left, r.Width = r.Left+r.QueueWidth, max(r.Width-r.QueueWidth, 0)
		r.Queued = formatDuration(q)
	}
	if queuedNow(sp) {
		r.Status = statusQueued
	}
	switch sp.Kind {
	case trace.KindInvokeAgent, trace.KindChat, trace.KindExecuteTool:
	default:
		r.title = spanTitle(sp)
	}
	return r
}

// Title is what a row is, for people, as its tooltip: "Delegation to
// data-analyst" (spanTitle, from the row's fields, so laying out a big run
// builds no strings it will not show).
func (r *TimelineRow) Title() string {
	switch {
	case r.Group != nil:
		return "Delegations to " + r.Name
	case r.deleg:
		return "Delegation to " + r.Name
	case r.Kind == trace.KindInvokeAgent:
		return "Agent " + r.Name
	case r.Kind == trace.KindChat:
		return "Model call (" + r.Name + ")"
	case r.Kind == trace.KindExecuteTool:
		return "Tool call " + r.Name
	}
	return r.title
}

// Duration is the row's length on the axis (a group's envelope).
func (r *TimelineRow) Duration() string { return formatDuration(r.end.Sub(r.start)) }

// Tokens are the span's tokens, "" when it used none.
func (r *TimelineRow) Tokens() string { return formatTokens(r.in, r.out) }

// rowName is what a row is labelled with, after its kind tag: the agent
// ("data-analyst"), the model ("demo"), the tool ("filesystem.read_file"),
// or for a delegation the agent delegated to.
func rowName(sp trace.Span) string {
	if t, ok := sp.Attributes[semconv.AttrTargetAgent].(string); ok && t != "" && sp.Kind == trace.KindExecuteTool {
		return t
	}
	name := sp.Name
	if rest, ok := strings.CutPrefix(name, string(sp.Kind)+" "); ok {
		name = rest
	}
	if name == "" {
		name = sp.Agent
	}
	return name
}

// isDelegation reports whether a span is a call of the delegate tool.
func isDelegation(sp trace.Span) bool {
	t, ok := sp.Attributes[semconv.AttrTargetAgent].(string)
	return sp.Kind == trace.KindExecuteTool && ok && t != ""
}

// spanTitle names a span for people, as the details panel's heading and the
// row's tooltip: "Agent data-analyst", "Model call (demo)", "Delegation to
// data-analyst", "Tool call filesystem.read_file".
func spanTitle(sp trace.Span) string {
	name := rowName(sp)
	switch {
	case isDelegation(sp):
		return "Delegation to " + name
	case sp.Kind == trace.KindInvokeAgent:
		return "Agent " + name
	case sp.Kind == trace.KindChat:
		return "Model call (" + name + ")"
	case sp.Kind == trace.KindExecuteTool:
		return "Tool call " + name
	}
	return sp.Name
}

// pct is d as a percentage of total, clamped to the axis.
func pct(d, total time.Duration) float64 {
	p := float64(d) / float64(total) * 100
	return min(max(p, 0), 100)
}

// countSubtree fills Sub and SubTally for r and returns r's own counts
// plus its subtree's, with the tally of their statuses. Tallies are only
// allocated where something failed, so a clean run of 10,000 spans makes no
// maps at all.
func countSubtree(r *TimelineRow) (Counts, StatusTally) {
	var sub Counts
	var tally StatusTally
	for _, c := range r.Children {
		cc, ct := countSubtree(c)
		sub.add(cc)
		if len(ct) > 0 && tally == nil {
			tally = StatusTally{}
		}
		for s, n := range ct {
			tally[s] += n
		}
	}
	r.Sub, r.SubTally = sub, tally
	own, ownTally := sub, tally
	if NotOK(r.Status) {
		own.NotOK++
		ownTally = make(StatusTally, len(tally)+1) // r.SubTally stays as it is
		for s, n := range tally {
			ownTally[s] = n
		}
		ownTally.add(r.Status)
	}
	if r.Status == trace.StatusDenied {
		own.Denials++
	}
	if r.Retry > 0 {
		own.Retries++
	}
	return own, ownTally
}

// isJumpTarget reports whether "next error" stops at r: a span that is not
// ok while nothing below it failed, that is where a failure began. A parent
// that failed because its child did is not one: the child is.
func isJumpTarget(r *TimelineRow) bool { return NotOK(r.Status) && r.Sub.NotOK == 0 }

func intAttr(attrs map[string]any, key string) int { return int(trace.NumberAttr(attrs, key)) }
