package core

import (
	"errors"

	"github.com/agentry/agentry/registry"
)

// ProblemsOf is what a registry.Parse error shows where an agent file's
// problems are listed (the editor's raw view, the JSON API's 422): the
// Problem it is, with its line, else one error with its text.
func ProblemsOf(err error) []registry.Problem {
	var p registry.Problem
	if errors.As(err, &p) {
		return []registry.Problem{p}
	}
	return []registry.Problem{{Severity: registry.SeverityError, Message: err.Error()}}
}
