package runs

import (
	"strings"
	"time"

	"github.com/agentry/agentry/trace"
)

// BuildTimeline lays out a run's spans (in start order, as Store.Spans
// returns them) on a shared axis. now ends the axis while the run is going,
// so running spans grow towards it.
func BuildTimeline(run trace.Run, spans []trace.Span, now time.Time) Timeline {
	tl := Timeline{Big: len(spans) > VisibleRows}
	tl.Axis = axisOf(run, spans, now)
	tl.Roots, tl.Rows = buildTree(spans, tl.Axis)
	for _, r := range tl.Roots {
		countSubtree(r)
	}
	markCritical(tl.Roots)
	if tl.Big {
		tl.CollapseLevel = collapseLevel(tl.Rows)
	}
	for _, r := range tl.Rows {
		if isJumpTarget(r.Status) {
			tl.Errors++
		}
		r.Collapsed = tl.Big && r.Level >= tl.CollapseLevel && len(r.Children) > 0
		r.Lazy = r.Collapsed
	}
	tl.Axis.Ticks = ticks(tl.Axis.Total)
	tl.Run = headerOf(run, tl.Axis.Total)
	tl.Rollup = rollupRows(trace.RollupSpans(spans))
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

// OpenAll expands every row and puts every row in the page, for a reader
// who asked to see a big run whole.
func (tl *Timeline) OpenAll() {
	for _, r := range tl.Rows {
		r.Collapsed, r.Lazy = false, false
	}
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
func buildTree(spans []trace.Span, ax Axis) (roots, flat []*TimelineRow) {
	byID := make(map[string]*TimelineRow, len(spans))
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
	flat = make([]*TimelineRow, 0, len(rows))
	var walk func(r *TimelineRow, level int)
	walk = func(r *TimelineRow, level int) {
		r.Level = level
		flat = append(flat, r)
		for _, c := range r.Children {
			walk(c, level+1)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
	if len(flat) < len(rows) { // a parent cycle; show the rest as roots
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
	return roots, flat
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
		Duration: formatDuration(end.Sub(sp.StartedAt)),
		Tokens:   formatTokens(sp.InputTokens, sp.OutputTokens),
		Left:     pct(sp.StartedAt.Sub(ax.Start), ax.Total),
		Width:    pct(end.Sub(sp.StartedAt), ax.Total),
		Retry:    intAttr(sp.Attributes, trace.AttrRetryAttempt),
	}
	// The runtime measures queued_ms from the delegation's start to the
	// moment it got a slot, so the wait is the first part of the span: drawn
	// lighter, with the bar after it showing the work.
	if q := time.Duration(floatAttr(sp.Attributes, trace.AttrQueuedMS) * float64(time.Millisecond)); q > 0 {
		q = min(q, end.Sub(sp.StartedAt))
		r.QueueLeft, r.QueueWidth = r.Left, pct(q, ax.Total)
		r.Left, r.Width = r.Left+r.QueueWidth, max(r.Width-r.QueueWidth, 0)
		r.Queued = formatDuration(q)
	}
	return r
}

// rowName is what a row is labelled with: the span name without its kind
// ("data-analyst" for "invoke_agent data-analyst"), or the agent's name.
func rowName(sp trace.Span) string {
	name := sp.Name
	if rest, ok := strings.CutPrefix(name, string(sp.Kind)+" "); ok {
		name = rest
	}
	if name == "" {
		name = sp.Agent
	}
	if t, ok := sp.Attributes[trace.AttrTargetAgent].(string); ok && t != "" && sp.Kind == trace.KindExecuteTool {
		name += " → " + t
	}
	return name
}

// pct is d as a percentage of total, clamped to the axis.
func pct(d, total time.Duration) float64 {
	p := float64(d) / float64(total) * 100
	return min(max(p, 0), 100)
}

// countSubtree fills Sub for r and returns r's own counts plus its subtree's.
func countSubtree(r *TimelineRow) Counts {
	var sub Counts
	for _, c := range r.Children {
		sub.add(countSubtree(c))
	}
	r.Sub = sub
	own := sub
	switch r.Status {
	case trace.StatusError, trace.StatusTimeout, trace.StatusInterrupted:
		own.Errors++
	case trace.StatusDenied:
		own.Denials++
	case trace.StatusCancelled:
		own.Cancelled++
	}
	if r.Retry > 0 {
		own.Retries++
	}
	return own
}

// isJumpTarget reports whether "next error" stops at a row with status s.
func isJumpTarget(s trace.Status) bool {
	return s.IsError() || s == trace.StatusInterrupted || s == trace.StatusCancelled
}

func intAttr(attrs map[string]any, key string) int { return int(floatAttr(attrs, key)) }

// floatAttr reads a number attribute whether it was recorded as a Go number
// or came back from JSON as float64; anything else is 0.
func floatAttr(attrs map[string]any, key string) float64 {
	switch v := attrs[key].(type) {
	case float64:
		return v
	case int:
		return float64(v)
	case int64:
		return float64(v)
	case float32:
		return float64(v)
	}
	return 0
}
