package answer

import (
	"encoding/json"
	"strings"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/trace/approval"
)

// Approves reports whether an --approve pattern covers the asked call: a
// tool pattern matching the tool, "delegate:AGENT" (AGENT a pattern) for
// a delegation, or a command pattern every command of the call matches.
func Approves(p string, ap approval.Approval) bool {
	if target, ok := strings.CutPrefix(p, "delegate:"); ok {
		agent, _ := strings.CutPrefix(ap.Subject, "delegate:")
		return ap.Tool == delegation.DelegateTool && permissions.Match(target, agent)
	}
	if ap.Tool == delegation.DelegateTool {
		return false
	}
	if _, _, ok := permissions.SplitPattern(p); !ok {
		return permissions.Match(p, ap.Tool)
	}
	var args struct{ Command string }
	if json.Unmarshal([]byte(ap.Arguments), &args) != nil {
		return false
	}
	chain := []permissions.Level{{Name: "--approve", Rules: permissions.Rules{Allow: []string{p}}}}
	return permissions.Command(chain, ap.Tool, args.Command).Allowed && permissions.Tool(chain, ap.Tool).Allowed
}
