package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

func TestWebConfigAllowsNamedNetworksAndRejectsMalformedOnes(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeFile(t, dir, "agentry.yaml", "web:\n  allow_hosts: [intranet.example]\n  allow_networks: [10.0.0.0/8]\n")
	cfg, err := loadWith(t, []string{"AGENTRY_WEB__ALLOW_NETWORKS=127.0.0.1/32, fd00::/8"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.Web.AllowNetworks, "|"); got != "127.0.0.1/32|fd00::/8" || strings.Join(cfg.Web.AllowHosts, "") != "intranet.example" {
		t.Fatalf("web = %+v", cfg.Web)
	}
	_, err = loadWith(t, []string{"AGENTRY_WEB__ALLOW_NETWORKS=10.0.0.0/99"})
	if err == nil || !strings.Contains(err.Error(), `config: web: allowed network "10.0.0.0/99"`) {
		t.Fatalf("err = %v, want the malformed range named", err)
	}
}

// web.fetch as agentry run wires it: a server on 127.0.0.1 is refused until
// web.allow_networks names it.
func TestRunRefusesWebFetchToLoopbackUnlessAllowed(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("secret"))
	}))
	defer srv.Close()
	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "fetcher.md", "---\nname: fetcher\ndescription: Fetches\n---\nYou fetch.\n")
	sc := writeFile(t, dir, "script.yaml", "fetcher:\n  - calls: [{tool: web.fetch, args: {url: \""+srv.URL+"/secret.txt\"}}]\n  - say: done\n")
	for _, c := range []struct {
		env  []string
		hits int64
		want string
	}{
		{nil, 0, "refused to connect to 127.0.0.1"},
		{[]string{"AGENTRY_WEB__ALLOW_NETWORKS=127.0.0.1"}, 1, ""},
	} {
		s, out, errOut := testSession(append(c.env, "AGENTRY_WORKSPACE="+dir)...)
		code := runCommand(context.Background(), s, []string{"fetcher", "x", "--agents", agents, "--db", filepath.Join(dir, "t.db"), "--model", "script:" + sc})
		if code != 0 {
			t.Fatalf("exit %d: %s %s", code, out, errOut)
		}
		if n := hits.Swap(0); n != c.hits {
			t.Errorf("env %v: %d requests reached the server, want %d", c.env, n, c.hits)
		}
		if c.want != "" && !strings.Contains(out.String(), c.want) {
			t.Errorf("env %v: output %q lacks %q", c.env, out, c.want)
		}
	}
}
