package core

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

func TestErrorsMapToStatusesInOnePlace(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{fmt.Errorf("save x: %w", registry.ErrConflict), http.StatusConflict},
		{fmt.Errorf("create x: %w", registry.ErrExists), http.StatusConflict},
		{fmt.Errorf("write: %w", registry.ErrInvalidPath), http.StatusBadRequest},
		{fmt.Errorf("run: %w", trace.ErrNotFound), http.StatusNotFound},
		{fmt.Errorf("delete x.md: %w", registry.ErrNotFound), http.StatusNotFound},
		{fmt.Errorf("explain: %w: no agent named %q", registry.ErrUnknownAgent, "x"), http.StatusNotFound},
		{&delegation.RejectedError{RunID: "r", Err: fmt.Errorf("start: %w", delegation.ErrUnknownAgent)}, http.StatusNotFound},
		{fmt.Errorf("start: %w", delegation.ErrAgentDisabled), http.StatusConflict},
		{fmt.Errorf("model: %w", model.ErrUnknownProvider), http.StatusBadRequest},
		{fmt.Errorf("script: %w", script.ErrNotAScript), http.StatusBadRequest},
		{script.ErrScriptsOff, http.StatusForbidden},
		{fmt.Errorf("import: %w", trace.ErrInvalid), http.StatusBadRequest},
		{trace.ErrClosed, http.StatusServiceUnavailable},
		{context.DeadlineExceeded, http.StatusGatewayTimeout},
		{fmt.Errorf("agent: %w", ErrNotFound), http.StatusNotFound},
		{echo.NewHTTPError(http.StatusTeapot, "tea"), http.StatusTeapot},
		{errors.New("disk on fire"), http.StatusInternalServerError},
	}
	for _, c := range cases {
		if got := StatusOf(c.err); got != c.want {
			t.Errorf("StatusOf(%v) = %d, want %d", c.err, got, c.want)
		}
	}
	if msg := MessageOf(errors.New("secret path /etc/x"), 500, "/runs"); strings.Contains(msg, "/etc") {
		t.Errorf("internal error leaked to the page: %q", msg)
	}
}

// A 404 says what is missing in a person's words, on the page and in the
// JSON API's error body, never the wrapped text of the handlers' errors.
func TestANotFoundSaysWhatIsMissingOnThePageAndInTheAPI(t *testing.T) {
	wrapped := fmt.Errorf("show run: %w", AsMissing(fmt.Errorf("run %q: %w", "x", trace.ErrNotFound), "run", "x"))
	cases := []struct {
		err        error
		path, want string
	}{
		{wrapped, "/runs/x", "There is no run “x”."},
		{wrapped, "", "There is no run “x”."},
		{echo.ErrNotFound, "/nowhere", "There is nothing at /nowhere."},
		{echo.NewHTTPError(http.StatusNotFound, "No such page."), "/p", "No such page."},
		{fmt.Errorf("look up: %w", ErrNotFound), "/api/v1/x", "There is nothing at /api/v1/x."},
	}
	for _, c := range cases {
		if got := MessageOf(c.err, http.StatusNotFound, c.path); got != c.want {
			t.Errorf("MessageOf(%v, 404, %q) = %q, want %q", c.err, c.path, got, c.want)
		}
		if ae := APIErrorOf(c.err, c.path); ae.Status != http.StatusNotFound || ae.Code != "not_found" || ae.Message != c.want {
			t.Errorf("APIErrorOf(%v, %q) = %+v, want a not_found saying %q", c.err, c.path, ae, c.want)
		}
	}
	if err := AsMissing(errors.New("disk on fire"), "run", "x"); StatusOf(err) != http.StatusInternalServerError {
		t.Errorf("AsMissing made %v a 404", err)
	}
}
