package core

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// APIPrefix is where the JSON API lives (web/api); an error there is
// answered as an APIError, not a page.
const APIPrefix = "/api/"

// A2APrefix is where the A2A endpoints live (web/a2a), and A2ACardPath
// the well-known path of an agent card: a program's door too, whose errors
// are APIErrors as the JSON API's are.
const (
	A2APrefix   = "/a2a"
	A2ACardPath = "/.well-known/agent-card.json"
)

// APIError is the one shape of every error the JSON API answers, whatever
// failed (the token check, a bad body, a missing run, a conflict): Code is
// stable for programs to branch on, Message is for people.
type APIError struct {
	Code    string        `json:"code" enum:"invalid,unauthorized,forbidden,not_found,not_allowed,conflict,too_large,unsupported,unprocessable,unavailable,bad_gateway,timeout,internal" doc:"What went wrong, stable for programs to branch on"`
	Message string        `json:"message" doc:"What went wrong, for a person"`
	Status  int           `json:"status" doc:"The HTTP status, repeated"`
	Details []ErrorDetail `json:"details,omitempty" doc:"Each problem of a request that was refused as invalid"`
}

// ErrorDetail is one problem of a refused request: where it is
// (body.task, path.id, query.limit) and what is wrong there.
type ErrorDetail struct {
	Location string `json:"location,omitempty"`
	Message  string `json:"message"`
	Value    any    `json:"value,omitempty"`
}

func (e *APIError) Error() string { return e.Message }

// GetStatus is the error's HTTP status.
func (e *APIError) GetStatus() int { return e.Status }

// codes is the one table from HTTP statuses to APIError codes.
var codes = map[int]string{
	http.StatusBadRequest:            "invalid",
	http.StatusUnauthorized:          "unauthorized",
	http.StatusForbidden:             "forbidden",
	http.StatusNotFound:              "not_found",
	http.StatusMethodNotAllowed:      "not_allowed",
	http.StatusConflict:              "conflict",
	http.StatusRequestEntityTooLarge: "too_large",
	http.StatusUnsupportedMediaType:  "unsupported",
	http.StatusUnprocessableEntity:   "unprocessable",
	http.StatusServiceUnavailable:    "unavailable",
	http.StatusBadGateway:            "bad_gateway",
	http.StatusGatewayTimeout:        "timeout",
}

// NewAPIError is the APIError for status and message.
func NewAPIError(status int, message string, details ...ErrorDetail) *APIError {
	code, ok := codes[status]
	switch {
	case ok:
	case status >= 500:
		code = "internal"
	default:
		code = "invalid"
	}
	return &APIError{Code: code, Message: message, Status: status, Details: details}
}

// APIErrorOf is err as the JSON API answers it: an *APIError as it is,
// else its status from StatusOf and the first line of what MessageOf says
// (so a 404 says what is missing as the error page does); path is the
// address asked, "" for a handler that does not know it.
func APIErrorOf(err error, path string) *APIError {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae
	}
	status := StatusOf(err)
	return NewAPIError(status, firstLine(MessageOf(err, status, path)))
}

// isAPI reports whether a program asked: the request is the JSON API's,
// or an A2A endpoint's or card's.
func isAPI(c echo.Context) bool {
	p := c.Request().URL.Path
	return strings.HasPrefix(p, APIPrefix) || strings.HasPrefix(p, A2APrefix+"/") || p == A2ACardPath
}
