package approvals

import (
	"bytes"
	"encoding/json"

	"github.com/agentry/agentry/trace/approval"
)

// pretty indents a call's JSON arguments for reading; other text is shown as is.
func pretty(args string) string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(args), "", "  ") != nil {
		return args
	}
	return b.String()
}

// short is arguments on one line, cut for a table cell.
func short(args string) string {
	if r := []rune(args); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return args
}

// statusClass maps an answer to the timeline's status colours.
func statusClass(s approval.Status) string {
	switch s {
	case approval.Approved:
		return "ok"
	case approval.Denied:
		return "denied"
	}
	return "running"
}
