package core

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
)

// MissingError is a thing a person asked for by name or ID that does not
// exist. It wraps ErrNotFound (a 404); the error page says what was not
// found in their words ("There is no run “x”."), where the error's text,
// wrapped by the handlers on its way up, would show internal prefixes.
type MissingError struct {
	What string // "run", "agent", "workflow", "eval suite": what the person calls it
	Name string // the name or ID asked for
}

// NotFound is the error of a handler asked for a what named name that does
// not exist.
func NotFound(what, name string) error { return &MissingError{What: what, Name: name} }

// AsMissing is err, or NotFound(what, name) when err is a not-found one (a
// 404: the store or the registry has no such thing), for a handler that
// looked what up by name.
func AsMissing(err error, what, name string) error {
	if err != nil && StatusOf(err) == http.StatusNotFound {
		return NotFound(what, name)
	}
	return err
}

func (e *MissingError) Error() string { return fmt.Sprintf("%s %q: not found", e.What, e.Name) }

// Unwrap makes the error a not-found one for StatusOf and errors.Is.
func (e *MissingError) Unwrap() error { return ErrNotFound }

// Message is the sentence a 404 says, on the error page and in the JSON
// API's error body.
func (e *MissingError) Message() string {
	return "There is no " + e.What + " “" + Shorten(e.Name) + "”."
}

// sectionOf is the nav entry whose list a path belongs to (/runs/x: Runs),
// which an error page links back to; the agents for a path under none.
func sectionOf(path string) NavItem {
	first, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	for _, n := range NavItems {
		if n.Href == "/"+first {
			return n
		}
	}
	return NavItems[0]
}

// BackLabel is the error page's link back to the list: "Back to the runs".
func (e ErrorView) BackLabel() string { return "Back to the " + strings.ToLower(e.Back.Label) }

// AsMissingAgent is err, of Snapshot.Explain over chain, or NotFound of the
// first agent on chain that snap does not have, when err is a not-found
// one. An agent that runs elsewhere (remote) keeps err, which says where.
func AsMissingAgent(err error, snap *registry.Snapshot, chain []string, remote []registry.RemoteTarget) error {
	if err == nil || StatusOf(err) != http.StatusNotFound {
		return err
	}
	for _, name := range chain {
		if _, ok := snap.Agent(name); ok || name == permissions.GeneralPurpose {
			continue
		}
		if _, elsewhere := snap.Remote(remote, name); elsewhere {
			return err
		}
		return NotFound("agent", name)
	}
	return err
}
