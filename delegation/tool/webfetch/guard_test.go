package webfetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentry/agentry/delegation/tool/netguard"
)

// secretServer stands for a service inside the network; hits counts the
// requests that reached it.
func secretServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("the secret"))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// resolver answers every name from a table, all on 127.0.0.1 here.
type resolver map[string]string

func (r resolver) LookupNetIP(_ context.Context, _ string, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// withHost is srv's URL with its host replaced by name.
func withHost(srv *httptest.Server, name, path string) string {
	u, _ := url.Parse(srv.URL)
	return "http://" + net.JoinHostPort(name, u.Port()) + path
}

func TestFetchRefusesInternalAddressesByDefault(t *testing.T) {
	srv, hits := secretServer(t)
	u, _ := url.Parse(srv.URL)
	cases := map[string]string{
		"loopback by address":                        srv.URL + "/secret.txt",
		"localhost by name":                          "http://" + net.JoinHostPort("localhost", u.Port()) + "/secret.txt",
		"a public-looking name that resolves inside": withHost(srv, "news.example.com", "/secret.txt"),
		"IPv6 loopback":                              "http://[::1]:" + u.Port() + "/",
		"cloud metadata":                             "http://169.254.169.254/latest/meta-data/",
		"IPv4-mapped loopback":                       "http://[::ffff:127.0.0.1]:" + u.Port() + "/",
	}
	res := resolver{"news.example.com": "127.0.0.1", "localhost": "127.0.0.1"}
	for name, target := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := fetch(t, Config{Resolver: res}, target)
			if !errors.Is(err, netguard.ErrRefused) || out != "" {
				t.Fatalf("fetch %s = %q, %v; want refused", target, out, err)
			}
			if !strings.Contains(err.Error(), "web.allow_networks") {
				t.Errorf("error %q should say how to allow it", err)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("%d requests reached the internal server", n)
	}
}

func TestFetchRefusesARedirectFromAnAllowedServerToAnInternalOne(t *testing.T) {
	secret, hits := secretServer(t)
	for name, target := range map[string]string{
		"by address":                     secret.URL + "/secret.txt",
		"by a name that resolves inside": withHost(secret, "inside.test", "/secret.txt"),
	} {
		t.Run(name, func(t *testing.T) {
			front := httptest.NewServer(http.RedirectHandler(target, http.StatusFound))
			defer front.Close()
			cfg := Config{AllowHosts: []string{"front.test"}, Resolver: resolver{"front.test": "127.0.0.1", "inside.test": "127.0.0.1"}}
			if out, err := fetch(t, cfg, withHost(front, "front.test", "/")); !errors.Is(err, netguard.ErrRefused) {
				t.Fatalf("fetch = %q, %v; want the redirect refused", out, err)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("%d requests reached the internal server", n)
	}
}

func TestFetchReachesInternalAddressesThatAreAllowed(t *testing.T) {
	secret, hits := secretServer(t)
	front := httptest.NewServer(http.RedirectHandler(secret.URL+"/secret.txt", http.StatusFound))
	defer front.Close()
	res := resolver{"intranet.test": "127.0.0.1"}
	cases := map[string]struct {
		cfg Config
		url string
	}{
		"a range":                          {Config{AllowCIDRs: []string{"127.0.0.1/32"}}, secret.URL},
		"a host by name":                   {Config{AllowHosts: []string{"intranet.test"}, Resolver: res}, withHost(secret, "intranet.test", "/")},
		"a redirect into an allowed range": {Config{AllowCIDRs: []string{"127.0.0.1/32"}}, front.URL},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := fetch(t, c.cfg, c.url)
			if err != nil || !strings.HasSuffix(out, "the secret") {
				t.Fatalf("fetch = %q, %v", out, err)
			}
		})
	}
	if n := hits.Load(); n != int64(len(cases)) {
		t.Fatalf("%d requests reached the server, want %d", n, len(cases))
	}
}

func TestAMalformedAllowEntryFailsEveryFetchNamingIt(t *testing.T) {
	srv, hits := secretServer(t)
	_, err := fetch(t, Config{AllowCIDRs: []string{"127.0.0.1/40"}}, srv.URL)
	if err == nil || !strings.Contains(err.Error(), `"127.0.0.1/40"`) || hits.Load() != 0 {
		t.Fatalf("fetch = %v, want a config error naming the entry", err)
	}
}
