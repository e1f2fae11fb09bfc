package runs

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/trace"
)

// minGroup is how many sibling delegations to one agent read as one group
// row: a fan-out of 100 calls is one thing to a reader, and 100 rows of it
// push everything else out of sight.
const minGroup = 10

// kindGroup is the view-only kind of a group row.
const kindGroup trace.Kind = "group"

// GroupStats summarise a group row's delegations.
type GroupStats struct {
	Count, OK int
	Tally     StatusTally // the ones that are not ok, by status
	Running   int
	P50, P99  string // durations of the delegations
	// Text is the summary written over the envelope bar:
	// "100 × leaf, 98 ok, 2 error, p50 40 ms, p99 310 ms".
	Text string
	// TextLeft places Text on the track (percent), inside the window even
	// when the envelope starts near the end of the axis.
	TextLeft float64
}

// groupChildren replaces, among p's children, every run of ten or more
// delegations to one agent with one group row holding them, placed where
// the first of them was. Children must be in start order.
func groupChildren(p *TimelineRow, ax Axis) {
	per := map[string]int{}
	for _, c := range p.Children {
		if c.deleg {
			per[c.Name]++
		}
	}
	if !slices.ContainsFunc(p.Children, func(c *TimelineRow) bool { return c.deleg && per[c.Name] >= minGroup }) {
		return
	}
	groups := map[string]*TimelineRow{}
	out := make([]*TimelineRow, 0, len(p.Children))
	for _, c := range p.Children {
		if !c.deleg || per[c.Name] < minGroup {
			out = append(out, c)
			continue
		}
		g := groups[c.Name]
		if g == nil {
			g = &TimelineRow{ID: "group:" + p.ID + ":" + c.Name, ParentID: p.ID, Kind: kindGroup, Name: c.Name,
				Agent: p.Agent, Status: trace.StatusOK, Group: &GroupStats{}}
			groups[c.Name] = g
			out = append(out, g)
		}
		g.Children = append(g.Children, c)
	}
	p.Children = out
	for _, g := range groups {
		finishGroup(g, ax)
	}
}

// finishGroup computes a group row's envelope and summary from its rows.
func finishGroup(g *TimelineRow, ax Axis) {
	s := g.Group
	durs := make([]time.Duration, 0, len(g.Children))
	g.start, g.end = g.Children[0].start, g.Children[0].end
	for _, c := range g.Children {
		g.start, g.end = minTime(g.start, c.start), maxTime(g.end, c.end)
		durs = append(durs, c.end.Sub(c.start))
		switch {
		case c.Status == trace.StatusOK:
			s.OK++
		case NotOK(c.Status):
			if s.Tally == nil {
				s.Tally = StatusTally{}
			}
			s.Tally.add(c.Status)
		default:
			s.Running++
		}
	}
	if s.Running > 0 {
		g.Status = trace.StatusRunning
	}
	s.Count = len(g.Children)
	slices.Sort(durs)
	s.P50, s.P99 = formatDuration(percentile(durs, 50)), formatDuration(percentile(durs, 99))
	g.Left, g.Width = pct(g.start.Sub(ax.Start), ax.Total), pct(g.end.Sub(g.start), ax.Total)
	s.TextLeft = g.Left
	if s.TextLeft > 45 { // the words would run off the track's end
		s.TextLeft = 0
	}
	parts := []string{strconv.Itoa(s.Count) + " × " + g.Name, strconv.Itoa(s.OK) + " ok"}
	if s.Running > 0 {
		parts = append(parts, strconv.Itoa(s.Running)+" running")
	}
	if len(s.Tally) > 0 {
		parts = append(parts, s.Tally.String())
	}
	s.Text = strings.Join(append(parts, "p50 "+s.P50, "p99 "+s.P99), ", ")
}

// percentile is the nearest-rank percentile p of sorted durations.
func percentile(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i-1, 0)]
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
