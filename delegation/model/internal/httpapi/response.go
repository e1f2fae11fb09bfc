package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
)

// maxSnippet bounds how much of an unreadable error body goes into a message.
const maxSnippet = 200

// FromResponse turns an error response into the runtime's kind of error (see
// Status), reading the provider's explanation from its body. It understands
// the envelope both OpenAI and Anthropic use ({"error": {"type", "message"}};
// OpenAI's "code", when present, is more specific than its type and wins), the bare {"error": "text"} of some
// OpenAI-compatible servers (Ollama), and otherwise quotes the start of the
// body, so a proxy's HTML page still explains itself. It reads res.Body but
// does not close it.
func FromResponse(provider string, res *http.Response, now time.Time) error {
	e := &APIError{Provider: provider, StatusCode: res.StatusCode}
	if res.Body != nil {
		body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		e.Type, e.Message = explain(body)
	}
	return Status(e, res.Header, now)
}

func explain(body []byte) (typ, msg string) {
	var env struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil && len(env.Error) > 0 {
		var detail struct {
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
			Message string          `json:"message"`
		}
		if json.Unmarshal(env.Error, &detail) == nil && (detail.Type != "" || detail.Message != "") {
			typ = code(detail.Code)
			if typ == "" {
				typ = detail.Type
			}
			return typ, detail.Message
		}
		var text string
		if json.Unmarshal(env.Error, &text) == nil {
			return "", text
		}
	}
	return "", snippet(body)
}

// code renders OpenAI's "code", which is a string or a number or null.
func code(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	return string(raw)
}

func snippet(body []byte) string {
	s := strings.Join(strings.Fields(string(body)), " ")
	if len(s) > maxSnippet {
		s = s[:maxSnippet] + "…"
	}
	return s
}
