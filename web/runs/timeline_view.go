package runs

import (
	"strconv"
	"strings"

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
	return c
}

// nodeClass marks a collapsed node, and a lazy one that hides failures so
// "next error" knows to open it.
func nodeClass(r *TimelineRow) string {
	c := "tl-node"
	if r.Collapsed {
		c += " collapsed"
	}
	if r.Lazy && r.Sub.NotOK > 0 {
		c += " has-fails"
	}
	return c
}

// levelClass indents a row's label by its tree level.
func levelClass(level int) string { return "lv-" + strconv.Itoa(min(level, maxLevelClass)) }

// ariaExpanded tells assistive technology whether a row's children show;
// "" (attribute left out) for a leaf.
func ariaExpanded(r *TimelineRow) string {
	if len(r.Children) == 0 {
		return ""
	}
	return strconv.FormatBool(!r.Collapsed)
}

// kindLabel is the short tag in front of a row's name: agent, model,
// delegate, tool, workflow or step.
func kindLabel(r *TimelineRow) string {
	switch {
	case r.Kind == trace.KindInvokeAgent:
		return "agent"
	case r.Kind == trace.KindChat:
		return "model"
	case strings.HasPrefix(r.Title, "Delegation"):
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
