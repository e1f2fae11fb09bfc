package httpapi

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/agentry/agentry/delegation/model"
)

// maxToolName is the longest function name OpenAI and Anthropic accept.
const maxToolName = 64

// ToolNames translates agentry's tool names, which are "group.tool" and may
// hold any character an MCP server uses, into the names both APIs accept
// (^[a-zA-Z0-9_-]{1,64}$), and back. A dot becomes "__", any other
// character outside the set becomes "_", an over-long name is cut and given
// a hash suffix, and a clash with an earlier tool gets a numeric suffix.
// Because the runtime offers tools sorted by name, the same tools get the
// same wire names on every turn of a conversation.
type ToolNames struct {
	wire     map[string]string // agentry name → wire name
	agentry  map[string]string // wire name → agentry name
	assigned map[string]bool
}

// NewToolNames assigns wire names to the offered tools, in the given order.
func NewToolNames(tools []model.Tool) *ToolNames {
	n := &ToolNames{
		wire:     make(map[string]string, len(tools)),
		agentry:  make(map[string]string, len(tools)),
		assigned: make(map[string]bool, len(tools)),
	}
	for _, t := range tools {
		n.add(t.Name)
	}
	return n
}

func (n *ToolNames) add(name string) string {
	if w, ok := n.wire[name]; ok {
		return w
	}
	base := sanitize(name)
	w := base
	for i := 2; n.assigned[w]; i++ {
		suffix := fmt.Sprintf("_%d", i)
		w = cut(base, maxToolName-len(suffix)) + suffix
	}
	n.wire[name], n.agentry[w], n.assigned[w] = w, name, true
	return w
}

// Wire returns the name to send for an agentry tool name. A name that was not
// offered (a call replayed from history) is translated the same way.
func (n *ToolNames) Wire(name string) string { return n.add(name) }

// Agentry returns the agentry name for a name the model used; a name that was
// never offered comes back unchanged, so the runtime can report it as unknown.
func (n *ToolNames) Agentry(wire string) string {
	if name, ok := n.agentry[wire]; ok {
		return name
	}
	return wire
}

func sanitize(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r == '.':
			b.WriteString("__")
		case r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" {
		return "_"
	}
	if len(s) > maxToolName {
		h := fnv.New32a()
		h.Write([]byte(name))
		suffix := fmt.Sprintf("_%08x", h.Sum32())
		s = s[:maxToolName-len(suffix)] + suffix
	}
	return s
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// ToolArgs keeps a tool call's argument text as the model sent it; none
// (some servers send "" or leave it out for a call without arguments) is
// the empty object.
func ToolArgs[T ~string | ~[]byte](args T) json.RawMessage {
	if len(args) == 0 {
		return json.RawMessage("{}")
	}
	return json.RawMessage(args)
}
