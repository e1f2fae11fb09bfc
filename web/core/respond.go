package core

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
)

// ErrNotFound is returned by handlers for a name or ID that does not exist.
var ErrNotFound = errors.New("not found")

// Render writes a component with a status. It renders into a buffer first so
// a failing component becomes an error page instead of half a page.
func Render(c echo.Context, status int, comp templ.Component) error {
	var buf bytes.Buffer
	if err := comp.Render(c.Request().Context(), &buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// IsHTMX reports whether htmx sent the request, so a handler answers with a fragment.
func IsHTMX(c echo.Context) bool { return c.Request().Header.Get("HX-Request") == "true" }

// statuses is the one table from domain errors to HTTP statuses; StatusOf
// reads it and every handler's error goes through StatusOf. A wrapped error
// takes the status of the first sentinel it wraps, in this order.
var statuses = []struct {
	err    error
	status int
}{
	{registry.ErrConflict, http.StatusConflict},
	{registry.ErrExists, http.StatusConflict},
	{registry.ErrInvalidPath, http.StatusBadRequest},
	{registry.ErrNotFound, http.StatusNotFound},
	{registry.ErrUnknownAgent, http.StatusNotFound},
	{delegation.ErrUnknownAgent, http.StatusNotFound},
	{delegation.ErrAgentDisabled, http.StatusConflict},
	{model.ErrUnknownProvider, http.StatusBadRequest},
	{script.ErrScriptsOff, http.StatusForbidden},
	{script.ErrNotAScript, http.StatusBadRequest},
	{trace.ErrNotFound, http.StatusNotFound},
	{approval.ErrDecided, http.StatusConflict},
	{trace.ErrInvalid, http.StatusBadRequest},
	{trace.ErrAmbiguous, http.StatusBadRequest},
	{trace.ErrClosed, http.StatusServiceUnavailable},
	{ErrNotFound, http.StatusNotFound},
	{context.Canceled, statusClientClosed},
	{context.DeadlineExceeded, http.StatusGatewayTimeout},
}

// statusClientClosed is what a request the client gave up on is logged
// with (nginx's 499); the client never sees it.
const statusClientClosed = 499

// StatusOf maps an error to an HTTP status. It is the one place that does:
// an *echo.HTTPError keeps its code, a domain error takes its status from
// the statuses table, and anything else is a 500.
func StatusOf(err error) int {
	var he *echo.HTTPError
	if errors.As(err, &he) {
		return he.Code
	}
	for _, s := range statuses {
		if errors.Is(err, s.err) {
			return s.status
		}
	}
	return http.StatusInternalServerError
}

// MessageOf is what an error says to whoever asked at path, on an error
// page and in the JSON API's error body alike. A 404 says what was missing
// when the handler said (MissingError), or the handler's own sentence (an
// *echo.HTTPError with a message of its own), else that nothing is at
// path; never a wrapped error's text, whose prefixes are the server's, not
// the person's. With no path (an API handler, which does not know its
// address) such a 404 keeps the error's first line. An internal error is
// logged in full but said only as a generic sentence.
func MessageOf(err error, status int, path string) string {
	var missing *MissingError
	var he *echo.HTTPError
	switch {
	case errors.As(err, &missing):
		return missing.Message()
	case errors.As(err, &he):
		m, ok := he.Message.(string)
		switch {
		case ok && (status != http.StatusNotFound || m != http.StatusText(http.StatusNotFound)):
			return m
		case status != http.StatusNotFound:
			return http.StatusText(he.Code)
		}
	case status == http.StatusInternalServerError:
		return "Something went wrong on the server. The details are in the server log."
	case status != http.StatusNotFound:
		return err.Error()
	}
	if path == "" {
		return FirstLine(err)
	}
	return "There is nothing at " + Shorten(path) + "."
}

// ErrorHandler is echo's error handler: it logs the failure with slog and
// renders a page (or, for htmx, a fragment) a person can read.
func ErrorHandler(log *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) { handleError(log, err, c) }
}

func handleError(log *slog.Logger, err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status := StatusOf(err)
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	r := c.Request()
	log.Log(r.Context(), level, "request failed", "method", r.Method, "path", r.URL.Path, "status", status, "err", err)
	if isAPI(c) { // a program asked: the API's one error shape
		ae := APIErrorOf(err, r.URL.Path)
		_ = c.JSON(ae.Status, ae)
		return
	}
	view := ErrorView{Status: status, Title: http.StatusText(status), Message: MessageOf(err, status, r.URL.Path), Back: sectionOf(r.URL.Path)}
	var comp templ.Component
	if IsHTMX(c) {
		comp = ErrorFragment(view)
	} else {
		comp = ErrorPage(Page(c, view.Title, view.Back.Href), view)
	}
	if r.Method == http.MethodHead {
		_ = c.NoContent(status)
		return
	}
	if rerr := Render(c, status, comp); rerr != nil {
		log.Error("render error page", "err", rerr)
		_ = c.String(status, view.Message)
	}
}
