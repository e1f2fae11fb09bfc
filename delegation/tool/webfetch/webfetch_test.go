package webfetch

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/tool"
)

// local allows the loopback address test servers listen on, which
// web.fetch refuses by default.
var local = Config{AllowCIDRs: []string{"127.0.0.1/32"}}

func fetch(t *testing.T, cfg Config, url string) (string, error) {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"url": url})
	return New(cfg).Call(context.Background(), args)
}

func TestFetchReturnsStatusTypeAndBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusTeapot)
		w.Write([]byte("short tea"))
	}))
	defer srv.Close()
	out, err := fetch(t, local, srv.URL)
	if err != nil || out != "status: 418\ncontent-type: text/plain\n\nshort tea" {
		t.Fatalf("fetch = %q, %v", out, err)
	}
}

func TestFetchCutsABodyAtTheSizeCap(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("a", 10_000)))
	}))
	defer srv.Close()
	out, err := fetch(t, Config{MaxBytes: 100, AllowCIDRs: local.AllowCIDRs}, srv.URL)
	if err != nil || !strings.Contains(out, strings.Repeat("a", 100)+"\n[") || strings.Contains(out, strings.Repeat("a", 101)) || !strings.Contains(out, "cut at 100 bytes") {
		t.Fatalf("fetch = %q, %v", out, err)
	}
}

func TestFetchGivesUpAtTheTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	_, err := fetch(t, Config{Timeout: 20 * time.Millisecond, AllowCIDRs: local.AllowCIDRs}, srv.URL)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
}

func TestFetchRefusesURLsThatAreNotHTTP(t *testing.T) {
	for _, u := range []string{"file:///etc/passwd", "ftp://x/y", "not a url", "/relative"} {
		if _, err := fetch(t, Config{}, u); !errors.Is(err, tool.ErrInvalidArgs) {
			t.Errorf("%q: err = %v", u, err)
		}
	}
}
