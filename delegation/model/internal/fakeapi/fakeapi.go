package fakeapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Reply is one canned answer.
type Reply struct {
	Status int
	Header map[string]string
	File   string // a response body in testdata/; empty for none
	Hold   bool   // never answer: wait until the client gives up
}

// Request is one request the server saw.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// Server answers each request with the next Reply, and with 418 once they
// run out, so an unexpected extra request (an SDK retry) shows in the test.
// It is safe for concurrent use.
type Server struct {
	t   testing.TB
	srv *httptest.Server

	mu      sync.Mutex
	replies []Reply
	got     []Request
}

// New starts a server that plays replies in order; it stops when the test ends.
func New(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s := &Server{t: t, replies: replies}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the server's root, e.g. "http://127.0.0.1:41234".
func (s *Server) URL() string { return s.srv.URL }

// Requests returns a copy of the requests seen so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.got...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.got = append(s.got, Request{r.Method, r.URL.Path, r.Header.Clone(), body})
	if len(s.replies) == 0 {
		s.mu.Unlock()
		http.Error(w, `{"type":"error","error":{"type":"test","message":"fake API: no reply left"}}`, http.StatusTeapot)
		return
	}
	rep := s.replies[0]
	s.replies = s.replies[1:]
	s.mu.Unlock()

	if rep.Hold {
		<-r.Context().Done()
		return
	}
	w.Header().Set("Content-Type", "application/json")
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(rep.Status)
	if rep.File != "" {
		w.Write(Testdata(s.t, rep.File))
	}
}

// Testdata reads testdata/name of the package under test.
func Testdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
