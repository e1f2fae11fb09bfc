package trace_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
	"github.com/agentry/agentry/trace/semconv"
)

func TestRedactRemovesSecretsFromMessages(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"a postgres URL keeps its user and loses its password",
			`open traces: failed to connect to postgres://agentry:s3cr3t!@db.internal:5432/traces?sslmode=disable`,
			`open traces: failed to connect to postgres://agentry:REDACTED@db.internal:5432/traces?sslmode=disable`},
		{"a URL password with an encoded at sign is removed whole",
			`dial redis://:p%40ss@cache:6379`, `dial redis://:REDACTED@cache:6379`},
		{"a token in a query string is removed",
			`Get "https://api.example.com/v1/search?q=go&token=abc123XYZ": dial tcp: timeout`,
			`Get "https://api.example.com/v1/search?q=go&token=REDACTED": dial tcp: timeout`},
		{"an api_key first in the query is removed",
			`GET https://maps.example.com/geo?api_key=AIzaSyD-123&lang=en failed`,
			`GET https://maps.example.com/geo?api_key=REDACTED&lang=en failed`},
		{"a bare key parameter is removed", `https://generativelanguage.example.com/v1/models?key=AIzaXYZ`,
			`https://generativelanguage.example.com/v1/models?key=REDACTED`},
		{"access_token and client_secret are removed", `?access_token=ya29.a0Af&client_secret=GOCSPX-1`,
			`?access_token=REDACTED&client_secret=REDACTED`},
		{"a keyword DSN's password is removed", `connect host=db user=agentry password=hunter2 dbname=traces`,
			`connect host=db user=agentry password=REDACTED dbname=traces`},
		{"an Authorization header keeps its scheme", `request had Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig`,
			`request had Authorization: Bearer REDACTED`},
		{"a Basic Authorization header is removed", `authorization: Basic dXNlcjpwYXNz`, `authorization: Basic REDACTED`},
		{"an API key header is removed", `sent X-Api-Key: 0123456789abcdef`, `sent X-Api-Key: REDACTED`},
		{"a credential in JSON is removed", `{"model":"m","api_key":"sk-live-1","n":1}`, `{"model":"m","api_key":"REDACTED","n":1}`},
		{"a bare bearer token is removed", `upstream said: invalid bearer eyJhbGciOi.payload`, `upstream said: invalid bearer REDACTED`},
		{"a provider key anywhere is removed", `401: incorrect API key provided: sk-proj-AbCdEf0123456789xyz`,
			`401: incorrect API key provided: REDACTED`},
		{"an Anthropic key anywhere is removed", `key sk-ant-api03-abcdefghijklmnop rejected`, `key REDACTED rejected`},
		{"a URL without credentials is left alone", `Get "https://example.com:8443/a/b?q=1&page=2": EOF`,
			`Get "https://example.com:8443/a/b?q=1&page=2": EOF`},
		{"a user without a password is left alone", `postgres://agentry@db/traces`, `postgres://agentry@db/traces`},
		{"ordinary text is left alone", `tool filesystem.read_file: open notes/q4.md: no such file`,
			`tool filesystem.read_file: open notes/q4.md: no such file`},
		{"empty stays empty", ``, ``},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := trace.Redact(c.in)
			if got != c.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
			if again := trace.Redact(got); again != got {
				t.Errorf("not idempotent: %q then %q", got, again)
			}
		})
	}
}

func TestRedactAttrCleansLogLines(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: trace.RedactAttr}))
	log.Error("connect postgres://u:pw1@h/db failed", "err", errors.New("dial ?token=tk2 refused"), "url", "https://x/?api_key=k3")
	for _, secret := range []string{"pw1", "tk2", "k3"} {
		if strings.Contains(buf.String(), secret) {
			t.Errorf("log line shows %q: %s", secret, buf.String())
		}
	}
}

func TestRecorderStoresErrorsRedacted(t *testing.T) {
	m := memory.New()
	rec := trace.NewRecorder(m, slowConfig())
	shared := map[string]any{semconv.EventAttrError: "retry: https://api/x?token=tk"}
	rec.RecordRun(trace.Run{ID: "r", Status: trace.StatusError, Error: "db postgres://u:pw@h/x down"})
	rec.RecordSpan(trace.Span{ID: "s", RunID: "r", Kind: trace.KindChat, Status: trace.StatusError,
		Error: "Authorization: Bearer abcdefghijk", Events: []trace.Event{{Name: "retry", Attributes: shared}}})
	if err := rec.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	run, _ := m.Run(t.Context(), "r")
	spans, _ := m.Spans(t.Context(), "r")
	if strings.Contains(run.Error, "pw") || len(spans) != 1 || strings.Contains(spans[0].Error, "abcdefghijk") ||
		strings.Contains(spans[0].Events[0].Attributes[semconv.EventAttrError].(string), "tk") {
		t.Errorf("stored run error %q, span %+v", run.Error, spans)
	}
	if shared[semconv.EventAttrError] != "retry: https://api/x?token=tk" {
		t.Error("redaction wrote into the caller's attributes map")
	}
}

// spanSink keeps the spans it gets.
type spanSink struct{ spans []trace.Span }

func (s *spanSink) RecordRun(trace.Run)      {}
func (s *spanSink) RecordSpan(sp trace.Span) { s.spans = append(s.spans, sp) }

func TestTeeRedactsSpanErrorsForEverySink(t *testing.T) {
	a, b := &spanSink{}, &spanSink{}
	sink := trace.Tee(a, b)
	sink.RecordSpan(trace.Span{ID: "err", Error: "dial postgres://u:pw9@h/db"})
	sink.RecordSpan(trace.Span{ID: "event", Events: []trace.Event{{Name: "retry", Attributes: map[string]any{semconv.EventAttrError: "GET /?token=tk9"}}}})
	sink.RecordSpan(trace.Span{ID: "clean", Attributes: map[string]any{semconv.AttrTask: "token=kept-as-content"}})
	for _, s := range []*spanSink{a, b} {
		if len(s.spans) != 3 || strings.Contains(s.spans[0].Error, "pw9") ||
			strings.Contains(s.spans[1].Events[0].Attributes[semconv.EventAttrError].(string), "tk9") ||
			s.spans[2].Attributes[semconv.AttrTask] != "token=kept-as-content" {
			t.Errorf("sink got %+v", s.spans)
		}
	}
}

// A nil sink in Tee is the runtime's "discard": left out, not called.
func TestTeeLeavesOutANilSink(t *testing.T) {
	a := &spanSink{}
	trace.Tee(nil, a).RecordSpan(trace.Span{ID: "s"})
	if len(a.spans) != 1 {
		t.Fatalf("the other sink got %+v", a.spans)
	}
}
