package trace

import (
	"log/slog"
	"regexp"

	"github.com/agentry/agentry/trace/semconv"
)

// Redacted replaces each secret that Redact removes.
const Redacted = "REDACTED"

// secretPatterns find secrets in free text. Each keeps its first group
// (what says a secret follows) and its second, if any, and replaces the
// secret between them.
var secretPatterns = []*regexp.Regexp{
	// The password of a URL's user info: postgres://user:PASSWORD@host.
	regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]*:)[^@\s/]+(@)`),
	// A credential in a query string or a key=value list: ?token=...,
	// &api_key=..., key=..., password=..., client_secret=..., sig=...
	regexp.MustCompile(`(?i)((?:^|[?&;,\s"'(])(?:[a-z0-9_.-]*(?:token|key|secret|password|passwd|pwd)|sig|signature|auth|authorization|credentials?)\s*=\s*)[^&;,\s"')#]+`),
	// An Authorization header, with or without its scheme.
	regexp.MustCompile(`(?i)(\b(?:proxy-)?authorization"?\s*:\s*"?(?:(?:bearer|basic|token|bot)\s+)?)[^\s",;]+`),
	// An API key header: X-Api-Key: ..., X-Goog-Api-Key: ...
	regexp.MustCompile(`(?i)(\bx-[a-z-]*api-key"?\s*:\s*"?)[^\s",;]+`),
	// A credential as a JSON field: "api_key": "...", "access_token": "...".
	regexp.MustCompile(`(?i)("[a-z0-9_.-]*(?:token|key|secret|password)"\s*:\s*")[^"]+(")`),
	// A bare bearer token: Bearer eyJ...
	regexp.MustCompile(`(?i)(\bbearer\s+)[a-z0-9._~+/=-]{8,}`),
	// Provider keys by their shape, wherever they appear: sk-..., sk-ant-...
	regexp.MustCompile(`(\b)sk-[a-zA-Z0-9_-]{16,}`),
}

// Redact returns s with the secrets it recognizes replaced by Redacted: URL
// passwords, credentials in query strings and key=value lists, Authorization
// and API key headers, credential fields of JSON, bearer tokens and
// provider API keys. Errors and logs pass through it before anyone sees
// them, because an error from a database driver or an HTTP client often
// quotes the URL it was given, and that URL may carry a password or a
// token. It is pure and idempotent; it errs on the side of hiding a value
// that only looks like a credential.
func Redact(s string) string {
	if s == "" {
		return s
	}
	for _, re := range secretPatterns {
		s = re.ReplaceAllString(s, "${1}"+Redacted+"${2}")
	}
	return s
}

// RedactAttr is a slog.HandlerOptions.ReplaceAttr that redacts the message
// and every string or error value, so a log line never shows a secret.
func RedactAttr(_ []string, a slog.Attr) slog.Attr {
	switch a.Value.Kind() {
	case slog.KindString:
		if r := Redact(a.Value.String()); r != a.Value.String() {
			a.Value = slog.StringValue(r)
		}
	case slog.KindAny:
		if err, ok := a.Value.Any().(error); ok {
			a.Value = slog.StringValue(Redact(err.Error()))
		}
	}
	return a
}

// redactSpan removes secrets from sp's error and from the errors of its
// events. sp is the caller's copy; the events it shares with other sinks
// are copied before they change, never written in place.
func redactSpan(sp *Span) {
	sp.Error = Redact(sp.Error)
	copied := false
	for i, e := range sp.Events {
		msg, ok := e.Attributes[semconv.EventAttrError].(string)
		if !ok || Redact(msg) == msg {
			continue
		}
		if !copied {
			sp.Events, copied = append([]Event(nil), sp.Events...), true
		}
		attrs := make(map[string]any, len(e.Attributes))
		for k, v := range e.Attributes {
			attrs[k] = v
		}
		attrs[semconv.EventAttrError] = Redact(msg)
		sp.Events[i].Attributes = attrs
	}
}
