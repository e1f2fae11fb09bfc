package core

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
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

func (e *MissingError) Error() string { return fmt.Sprintf("%s %q: not found", e.What, e.Name) }

// Unwrap makes the error a not-found one for StatusOf and errors.Is.
func (e *MissingError) Unwrap() error { return ErrNotFound }

// Message is the sentence the error page shows.
func (e *MissingError) Message() string {
	return "There is no " + e.What + " “" + Shorten(e.Name) + "”."
}

// notFoundMessage is what a 404 page says: what was missing when the
// handler said (MissingError) or its own sentence (an *echo.HTTPError with
// a message of its own), else that nothing is at the address; never a
// wrapped error's text, whose prefixes are the server's, not the person's.
func notFoundMessage(err error, path string) string {
	var missing *MissingError
	if errors.As(err, &missing) {
		return missing.Message()
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		if m, ok := he.Message.(string); ok && m != http.StatusText(http.StatusNotFound) {
			return m
		}
	}
	return "There is nothing at " + Shorten(path) + "."
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
