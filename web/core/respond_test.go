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
	if msg := messageOf(errors.New("secret path /etc/x"), 500); strings.Contains(msg, "/etc") {
		t.Errorf("internal error leaked to the page: %q", msg)
	}
}
