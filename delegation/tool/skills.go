package tool

import (
	"errors"

	"github.com/agentry/agentry/registry/skills"
)

// ErrDenied marks a call a tool refused because the invocation's
// permissions do not allow what it asked for (the skill tool asked for a
// skill the chain denies); the runtime traces such a call as denied.
var ErrDenied = errors.New("not allowed")

// Skills is an invocation's access to Agent Skills, which the runtime puts
// on each tool call (Call.Skills): the skill tool loads through it, and
// the filesystem tools read the folders of the skills loaded. Safe for
// concurrent use.
type Skills interface {
	// Load returns the skill with that id when the invocation may use it
	// and records the load (for the trace, and to narrow the invocation's
	// tools to the skill's allowed-tools). A skill the chain denies is an
	// error wrapping ErrDenied; an unknown one lists those it may load.
	Load(id string) (skills.Skill, error)
	// Folders are the folders of the skills loaded so far, absolute: the
	// filesystem tools may read in them (never write), confined to each.
	Folders() []string
}
