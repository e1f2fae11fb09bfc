package anthropic_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the request golden files from what the SDK sends")

// reply is one canned answer of the fake API.
type reply struct {
	status int
	header map[string]string
	file   string // a response body in testdata/; empty for none
	hold   bool   // never answer: wait until the client gives up
}

// received is one request the fake API saw.
type received struct {
	method, path string
	header       http.Header
	body         []byte
}

// fakeAPI is a local server speaking the Messages API wire format: it
// records each request and plays the next canned reply.
type fakeAPI struct {
	t   *testing.T
	srv *httptest.Server

	mu      sync.Mutex
	replies []reply
	got     []received
}

func newFakeAPI(t *testing.T, replies ...reply) *fakeAPI {
	t.Helper()
	f := &fakeAPI{t: t, replies: replies}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// baseURL is the API root as users configure it, without the version path.
func (f *fakeAPI) baseURL() string { return f.srv.URL }

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.got = append(f.got, received{r.Method, r.URL.Path, r.Header.Clone(), body})
	if len(f.replies) == 0 {
		f.mu.Unlock()
		http.Error(w, `{"type":"error","error":{"type":"test","message":"fake API: no reply left"}}`, http.StatusTeapot)
		return
	}
	rep := f.replies[0]
	f.replies = f.replies[1:]
	f.mu.Unlock()

	if rep.hold {
		<-r.Context().Done()
		return
	}
	w.Header().Set("Content-Type", "application/json")
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(rep.status)
	if rep.file != "" {
		w.Write(readTestdata(f.t, rep.file))
	}
}

func (f *fakeAPI) requests() []received {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]received(nil), f.got...)
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// assertGolden compares a request body with testdata/name as JSON values,
// so key order and spacing do not matter but every field and value does.
func assertGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	gotNorm := normalize(t, got)
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, gotNorm, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := normalize(t, readTestdata(t, name))
	if !bytes.Equal(gotNorm, want) {
		t.Errorf("request body differs from %s\ngot:\n%s\nwant:\n%s", path, gotNorm, want)
	}
}

func normalize(t *testing.T, b []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}
