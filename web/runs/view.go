package runs

import (
	"net/url"
	"slices"
	"strconv"

	"github.com/agentry/agentry/trace"
)

// windowRows is how many rows the page holds at a time, whatever the run's
// size: about four screens, so scrolling a screen rarely waits.
const windowRows = 100

// maxToggles bounds the rows a view remembers as opened or closed by hand,
// and maxRevealed the spans it keeps revealed, so a view stays a short URL.
const (
	maxToggles  = 200
	maxRevealed = 8
)

// view is how a reader looks at a run: which rows are open, whether only
// the critical path shows, what they are looking for. It travels in the
// query string (so a view is a link, and the pager works without
// JavaScript); the server turns it into the list of visible rows.
type view struct {
	// Mode is the starting point: "" (the run's default: deep levels of a
	// big run and every group closed), "all" (everything open) or "none"
	// (only the roots).
	Mode string
	// Open and Shut are rows opened or closed by hand since; Shut wins.
	Open, Shut []string
	// Show are spans whose ancestors are open: where "next error" went.
	Show []string
	Crit bool // only the critical path
	Find trace.SpanQuery
}

// parseView reads a view from a query string; "open=all" is the old
// address of Expand all.
func parseView(q url.Values) view {
	v := view{Mode: q.Get("mode"), Open: q["open"], Shut: q["shut"], Show: q["show"], Crit: q.Get("crit") == "1",
		Find: trace.SpanQuery{Agent: q.Get("agent"), Status: trace.Status(q.Get("status")), Tool: q.Get("tool"), Text: q.Get("q")}}
	if slices.Contains(v.Open, "all") {
		v.Mode, v.Open = "all", slices.DeleteFunc(slices.Clone(v.Open), func(s string) bool { return s == "all" })
	}
	if v.Mode != "all" && v.Mode != "none" {
		v.Mode = ""
	}
	v.Open, v.Shut, v.Show = lastN(v.Open, maxToggles), lastN(v.Shut, maxToggles), lastN(v.Show, maxRevealed)
	return v
}

// values is v as query parameters, the inverse of parseView.
func (v view) values() url.Values {
	q := url.Values{}
	set := func(k, s string) {
		if s != "" {
			q.Set(k, s)
		}
	}
	set("mode", v.Mode)
	set("agent", v.Find.Agent)
	set("status", string(v.Find.Status))
	set("tool", v.Find.Tool)
	set("q", v.Find.Text)
	if v.Crit {
		q.Set("crit", "1")
	}
	for k, ids := range map[string][]string{"open": v.Open, "shut": v.Shut, "show": v.Show} {
		if len(ids) > 0 {
			q[k] = ids
		}
	}
	return q
}

// key identifies the visible rows a view yields, for the layout's cache.
func (v view) key() string { return v.values().Encode() }

// act applies a reader's action and returns the span to bring into view
// ("" for none): expand or collapse row id, open or close everything, go to
// the next place a failure began after row id.
func (v *view) act(tl *Timeline, act, id string) string {
	switch act {
	case "expand":
		v.Shut = without(v.Shut, id)
		v.Open = lastN(append(without(v.Open, id), id), maxToggles)
	case "collapse":
		v.Open = without(v.Open, id)
		v.Shut = lastN(append(without(v.Shut, id), id), maxToggles)
	case "all", "none":
		*v = view{Mode: act, Crit: v.Crit, Find: v.Find}
	case "next":
		t := tl.nextError(id)
		if t == nil {
			return ""
		}
		v.Show = lastN(append(without(v.Show, t.ID), t.ID), maxRevealed)
		for p := t.parent; p != nil; p = p.parent {
			v.Shut = without(v.Shut, p.ID)
		}
		if !v.Find.Empty() || (v.Crit && !t.Critical) { // the failure would stay out of sight
			v.Find, v.Crit = trace.SpanQuery{}, false
		}
		return t.ID
	}
	return ""
}

// nextError is the first place a failure began after row id in tree order,
// wrapping around; with id "" (or unknown) the run's first failure in time.
func (tl *Timeline) nextError(id string) *TimelineRow {
	if len(tl.targets) == 0 {
		return nil
	}
	from, ok := tl.byID[id]
	if !ok {
		return tl.byID[tl.FirstError]
	}
	i, _ := slices.BinarySearchFunc(tl.targets, from.pos+1, func(r *TimelineRow, pos int) int { return r.pos - pos })
	if i == len(tl.targets) {
		i = 0
	}
	return tl.targets[i]
}

// visible lists the rows v shows, in tree order: a collapsed row's subtree
// is left out, and with Crit only rows on the critical path stay. It walks
// the flat row list once, skipping a subtree by level, so a chain 20,000
// deep costs no more than a flat run of 20,000.
func (tl *Timeline) visible(v view) []*TimelineRow {
	open, shut, shown := v.sets(tl)
	out := make([]*TimelineRow, 0, min(len(tl.Rows), 1024))
	skip := -1 // rows deeper than this level are inside a collapsed row
	for _, r := range tl.Rows {
		if skip >= 0 && r.Level > skip {
			continue
		}
		skip = -1
		if !v.Crit || r.Critical {
			out = append(out, r)
		}
		if v.collapsed(r, open, shut, shown) {
			skip = r.Level
		}
	}
	return out
}

// sets are v's opened, closed and revealed rows, for collapsed.
func (v view) sets(tl *Timeline) (open, shut map[string]bool, shown map[*TimelineRow]bool) {
	open, shut, shown = set(v.Open), set(v.Shut), map[*TimelineRow]bool{}
	for _, id := range v.Show {
		if r, ok := tl.byID[id]; ok {
			for p := r.parent; p != nil && !shown[p]; p = p.parent {
				shown[p] = true
			}
		}
	}
	return open, shut, shown
}

// closedIn marks which of rows have their children hidden in v.
func (v view) closedIn(tl *Timeline, rows []*TimelineRow) map[*TimelineRow]bool {
	open, shut, shown := v.sets(tl)
	m := map[*TimelineRow]bool{}
	for _, r := range rows {
		if v.collapsed(r, open, shut, shown) {
			m[r] = true
		}
	}
	return m
}

// collapsed reports whether r's children are hidden in v.
func (v view) collapsed(r *TimelineRow, open, shut map[string]bool, shown map[*TimelineRow]bool) bool {
	switch {
	case len(r.Children) == 0:
		return false
	case shut[r.ID]:
		return true
	case open[r.ID] || shown[r]:
		return false
	case v.Mode == "all":
		return false
	case v.Mode == "none":
		return true
	}
	return r.Collapsed
}

// found lists the rows whose span IDs are in ids, in tree order.
func (tl *Timeline) found(ids []string) []*TimelineRow {
	in := set(ids)
	var out []*TimelineRow
	for _, r := range tl.Rows {
		if r.Group == nil && in[r.ID] {
			out = append(out, r)
		}
	}
	return out
}

func set(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

func without(ids []string, id string) []string {
	return slices.DeleteFunc(slices.Clone(ids), func(s string) bool { return s == id })
}

func lastN(ids []string, n int) []string {
	if len(ids) > n {
		return ids[len(ids)-n:]
	}
	return ids
}

// atoi reads a non-negative number, 0 for anything else.
func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
