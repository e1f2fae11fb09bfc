package modeltest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/internal/fakeapi"
)

// HTTPSubject is a provider that calls an HTTP API, as RunHTTP sees it.
type HTTPSubject struct {
	// New builds the model named modelName for the API at baseURL with
	// apiKey, sending through client (nil: the provider's default).
	New func(modelName, baseURL, apiKey string, client *http.Client) (model.LLM, error)
	// Model is a model name the provider accepts.
	Model string
	// Root is the base URL a user configures for a server at url (OpenAI's
	// includes the version path, Anthropic's does not).
	Root func(url string) string
	// EnvAPIKey is the variable a missing-key error must name.
	EnvAPIKey string
	// ErrNoAPIKey and ErrNoModel are the provider's sentinels for a missing
	// key and an empty model name.
	ErrNoAPIKey, ErrNoModel error
	// AuthHeaders are the request headers that carry the key.
	AuthHeaders []string
	// Files in the provider's testdata: a text answer, and the bodies its
	// API sends with a 429, a 500 and a 400.
	Text, RateLimited, ServerError, BadRequest string
}

// RunHTTP runs Run for s against the fake API, then the tests every HTTP
// provider must pass: credentials, and how each failure is sorted into
// transient (the runtime retries) and final.
func RunHTTP(t *testing.T, s HTTPSubject) {
	Run(t, Subject{New: s.answering, Hanging: s.hanging})
	t.Run("a missing key for a remote server is refused and names the variable", s.testMissingKey)
	t.Run("a local server needs no key and gets none", s.testLocalNoKey)
	t.Run("an empty model name is refused", s.testNoModel)
	t.Run("an attempt that outlives the client timeout is transient", s.testClientTimeout)
	t.Run("a refused connection is transient", s.testRefused)
	t.Run("a tool whose schema is not an object is refused before sending", s.testBadSchema)
	s.runFailures(t)
}

// answering is a model on a fake API that answers each of its next calls
// requests with s.Text.
func (s HTTPSubject) answering(t *testing.T, calls int) model.LLM {
	replies := make([]fakeapi.Reply, calls)
	for i := range replies {
		replies[i] = fakeapi.Reply{Status: 200, File: s.Text}
	}
	return s.must(t, fakeapi.New(t, replies...), nil)
}

// hanging is a model on a fake API that never answers.
func (s HTTPSubject) hanging(t *testing.T) model.LLM {
	return s.must(t, fakeapi.New(t, fakeapi.Reply{Hold: true}), nil)
}

func (s HTTPSubject) testMissingKey(t *testing.T) {
	for _, base := range []string{"", "https://llm-gateway.example.com/v1"} {
		_, err := s.New(s.Model, base, "", nil)
		if !errors.Is(err, s.ErrNoAPIKey) || !strings.Contains(err.Error(), s.EnvAPIKey) {
			t.Fatalf("New for %q without a key = %v, want ErrNoAPIKey naming %s", base, err, s.EnvAPIKey)
		}
	}
}

func (s HTTPSubject) testLocalNoKey(t *testing.T) {
	api := fakeapi.New(t, fakeapi.Reply{Status: 200, File: s.Text})
	llm, err := s.New(s.Model, s.Root(api.URL()), "", nil)
	if err != nil {
		t.Fatalf("New for %s without a key: %v", api.URL(), err)
	}
	if _, err := llm.Generate(context.Background(), question()); err != nil {
		t.Fatal(err)
	}
	for _, h := range s.AuthHeaders {
		if v := api.Requests()[0].Header.Get(h); v != "" {
			t.Errorf("%s = %q sent without a key", h, v)
		}
	}
}

func (s HTTPSubject) testNoModel(t *testing.T) {
	if _, err := s.New("", "", "k", nil); !errors.Is(err, s.ErrNoModel) {
		t.Fatalf("New(\"\") = %v, want ErrNoModel", err)
	}
}

func (s HTTPSubject) testClientTimeout(t *testing.T) {
	llm := s.must(t, fakeapi.New(t, fakeapi.Reply{Hold: true}), &http.Client{Timeout: 50 * time.Millisecond})
	if _, err := llm.Generate(context.Background(), question()); !isTransient(err) {
		t.Fatalf("Generate past the client timeout = %v, want a transient error", err)
	}
}

func (s HTTPSubject) testRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	llm, err := s.New(s.Model, s.Root("http://"+addr), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := llm.Generate(context.Background(), question()); !isTransient(err) {
		t.Fatalf("Generate against a closed port = %v, want a transient error", err)
	}
}

func (s HTTPSubject) testBadSchema(t *testing.T) {
	api := fakeapi.New(t)
	req := question()
	req.Tools = []model.Tool{{Name: "broken", Parameters: []byte(`[1,2]`)}}
	_, err := s.must(t, api, nil).Generate(context.Background(), req)
	if err == nil || !strings.Contains(err.Error(), `tool "broken"`) || len(api.Requests()) != 0 {
		t.Fatalf("Generate = %v after %d requests, want an error naming the tool and none sent", err, len(api.Requests()))
	}
}

// runFailures checks that each failure is sorted as the runtime's retries
// need, after exactly one request: the runtime retries, never the SDK.
func (s HTTPSubject) runFailures(t *testing.T) {
	cases := []struct {
		name      string
		reply     fakeapi.Reply
		transient bool
		wait      time.Duration
	}{
		{"429 is transient and carries Retry-After", fakeapi.Reply{Status: 429, Header: map[string]string{"Retry-After": "7"}, File: s.RateLimited}, true, 7 * time.Second},
		{"429 prefers retry-after-ms", fakeapi.Reply{Status: 429, Header: map[string]string{"Retry-After": "7", "Retry-After-Ms": "250"}, File: s.RateLimited}, true, 250 * time.Millisecond},
		{"500 is transient", fakeapi.Reply{Status: 500, File: s.ServerError}, true, 0},
		{"a proxy's 502 page is transient", fakeapi.Reply{Status: 502, Header: map[string]string{"Content-Type": "text/html"}}, true, 0},
		{"x-should-retry false makes a 500 final", fakeapi.Reply{Status: 500, Header: map[string]string{"X-Should-Retry": "false"}, File: s.ServerError}, false, 0},
		{"400 is final", fakeapi.Reply{Status: 400, File: s.BadRequest}, false, 0},
		{"401 is final", fakeapi.Reply{Status: 401, File: s.BadRequest}, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			api := fakeapi.New(t, c.reply)
			_, err := s.must(t, api, nil).Generate(context.Background(), question())
			if err == nil {
				t.Fatal("Generate succeeded, want an error")
			}
			wait, transient := model.IsTransient(err)
			if transient != c.transient || wait != c.wait {
				t.Errorf("error %q: transient=%v wait=%v, want %v %v", err, transient, wait, c.transient, c.wait)
			}
			if n := len(api.Requests()); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
		})
	}
}

func (s HTTPSubject) must(t *testing.T, api *fakeapi.Server, client *http.Client) model.LLM {
	t.Helper()
	llm, err := s.New(s.Model, s.Root(api.URL()), "sk-test-contract", client)
	if err != nil {
		t.Fatal(err)
	}
	return llm
}

func isTransient(err error) bool {
	_, ok := model.IsTransient(err)
	return ok
}
