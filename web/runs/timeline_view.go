package runs

import (
	"net/url"
	"strconv"

	"github.com/a-h/templ"

	"github.com/agentry/agentry/trace"
)

// maxLevelClass is the deepest indentation the stylesheet defines; deeper
// rows indent no further, which keeps long chains readable.
const maxLevelClass = 12

// pctAttr writes a percentage for a data attribute with enough precision to
// place a 1 ms span on a long axis, and no more.
func pctAttr(p float64) string { return strconv.FormatFloat(p, 'f', 3, 64) }

// rowClass is a row's classes: its status colour, its kind, and whether it is
// on the critical path.
func rowClass(r *TimelineRow) string {
	c := "tl-row st-" + string(r.Status) + " k-" + string(r.Kind)
	if r.Critical {
		c += " crit"
	}
	if NotOK(r.Status) {
		c += " failed"
	}
	if isJumpTarget(r) {
		c += " origin"
	}
	if r.Group != nil && r.Sub.NotOK > 0 {
		c += " g-fails"
	}
	return c
}

// RowWindow is the part of a view the page holds: rows From to
// From+len(Rows) of Total, and what the page needs to ask for the next.
type RowWindow struct {
	RunID       string
	From, Total int
	Rows        []*TimelineRow
	View        view
	Target      string // the span "next error" went to, "" otherwise
	Version     int    // the layout's build, so a live page knows what it shows

	closed map[*TimelineRow]bool // rows of the window whose children are hidden
	// changed are the agents whose file has changed since the run
	// (versions.go), so their rows say so.
	changed map[string]bool
}

// url is the run's page (or, with rest "/rows", its rows) for this view,
// with extra parameters (pairs of key and value) such as from or act.
func (w RowWindow) url(rest string, kv ...string) templ.SafeURL {
	q := w.View.values()
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	u := "/runs/" + url.PathEscape(w.RunID) + rest
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return templ.SafeURL(u)
}

// collapsed reports whether a row's children are hidden in this window's
// view; every row found by a search shows alone.
func (w RowWindow) collapsed(r *TimelineRow) bool {
	return len(r.Children) > 0 && (!w.View.Find.Empty() || w.closed[r])
}

// Prev is where the pager's previous window starts; -1 when there is none.
func (w RowWindow) Prev() int {
	if w.From == 0 {
		return -1
	}
	return max(w.From-windowRows, 0)
}

// Next is where the pager's next window starts; -1 when there is none.
func (w RowWindow) Next() int {
	if w.From+len(w.Rows) >= w.Total {
		return -1
	}
	return w.From + windowRows
}

// nodeClass marks a collapsed node, and one that hides failures so a
// reader sees where to look.
func nodeClass(r *TimelineRow, collapsed bool) string {
	c := "tl-node"
	if collapsed {
		c += " collapsed"
		if r.Sub.NotOK > 0 {
			c += " has-fails"
		}
	}
	return c
}

// levelClass indents a row's label by its tree level.
func levelClass(level int) string { return "lv-" + strconv.Itoa(min(level, maxLevelClass)) }

// ariaExpanded tells assistive technology whether a row's children show;
// "" (attribute left out) for a leaf.
func ariaExpanded(r *TimelineRow, collapsed bool) string {
	if len(r.Children) == 0 {
		return ""
	}
	return strconv.FormatBool(!collapsed)
}

// kindLabel is the short tag in front of a row's name: agent, model,
// delegate, tool, workflow or step.
func kindLabel(r *TimelineRow) string {
	switch {
	case r.Group != nil:
		return "group"
	case r.Kind == trace.KindInvokeAgent:
		return "agent"
	case r.Kind == trace.KindChat:
		return "model"
	case r.deleg:
		return "delegate"
	case r.Kind == trace.KindExecuteTool:
		return "tool"
	case r.Kind == trace.KindInvokeWorkflow:
		return "workflow"
	case r.Kind == trace.KindWorkflowStep:
		return "step"
	}
	return string(r.Kind)
}

// subTitle explains a row's subtree tally: "3 spans below are not ok: 2
// denied, 1 error".
func subTitle(r *TimelineRow) string {
	return strconv.Itoa(r.Sub.NotOK) + " spans below are not ok: " + r.SubTally.String()
}

// rowTestID tells span rows from group rows, so counts of span-row are
// counts of spans.
func rowTestID(r *TimelineRow) string {
	if r.Group != nil {
		return "group-row"
	}
	return "span-row"
}

// toggleAct is what a row's toggle asks the server to do.
func toggleAct(collapsed bool) string {
	if collapsed {
		return "expand"
	}
	return "collapse"
}

// findStatuses are the statuses the find form offers.
var findStatuses = []string{"ok", "error", "timeout", "cancelled", "denied", "skipped", "limit", "interrupted", "running"}
