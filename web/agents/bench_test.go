package agents_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentry/agentry/web"
)

// manyAgents is a folder of n agents, each delegating to the next two, with
// tool rules, so rows have the usual amount of content.
func manyAgents(n int) map[string]string {
	files := make(map[string]string, n)
	for i := range n {
		files[fmt.Sprintf("agent-%04d.md", i)] = fmt.Sprintf(
			"---\nname: agent-%04d\ndescription: Agent number %d, which handles one slice of the work and reports back.\nmodel: demo\ntools:\n  allow: [web, filesystem.read_*]\nsubagents:\n  allow: [agent-%04d, agent-%04d]\n---\nYou are agent %d.\n",
			i, i, (i+1)%n, (i+2)%n, i)
	}
	return files
}

// benchPage serves path from a server over files and reports the median
// server-side render time in ms.
func benchPage(b *testing.B, files map[string]string, path string) {
	folder := newMemFolder(files)
	srv, err := web.New(web.Config{Agents: folder.Reg, Files: folder, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var total time.Duration
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Host = "127.0.0.1"
		rec := httptest.NewRecorder()
		start := time.Now()
		srv.ServeHTTP(rec, req)
		total += time.Since(start)
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s = %d", path, rec.Code)
		}
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/render")
}

// BenchmarkAgentsList1000 is the budget: the agents list with 1,000
// agents renders in at most 100 ms on the server.
func BenchmarkAgentsList1000(b *testing.B) { benchPage(b, manyAgents(1000), "/agents") }

// BenchmarkGraph1000 draws the delegation graph of the same 1,000 agents.
func BenchmarkGraph1000(b *testing.B) { benchPage(b, manyAgents(1000), "/graph") }
