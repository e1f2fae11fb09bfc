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
		code := s.main(context.Background(), []string{"run", "fetcher", "x", "--agents", agents, "--db", filepath.Join(dir, "t.db"), "--model", "script:" + sc})
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
