//go:build stress

package runs_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentry/agentry/web"
)

// TestStressStartFormHostileValues posts thousands of hostile start-form
// values from parallel clients (issue 12.3): every one must be refused with
// a short reason, none may reach the runtime, and the server must answer
// normally afterwards.
func TestStressStartFormHostileValues(t *testing.T) {
	for _, dir := range []string{"", scriptsFolder(t)} {
		e := newRunsEnv(t, func(c *web.Config) { c.ScriptDir = dir })
		_, doc := e.Get("/runs/new")
		csrf := csrfOf(doc)
		values := append([]string(nil), hostileModels...)
		rng := rand.New(rand.NewPCG(1, 2))
		for range 200 {
			values = append(values, "script:"+randomPath(rng), randomPath(rng))
		}
		const workers, rounds = 8, 5
		var posted, refused, leaked atomic.Int64
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for r := range rounds {
					for i, m := range values {
						if (i+w+r)%workers != 0 {
							continue
						}
						form := url.Values{"agent": {"lead"}, "task": {"x"}, "model": {m}, "_csrf": {csrf}}
						resp, err := e.Client.PostForm(e.HTTP.URL+"/runs/new", form)
						if err != nil {
							t.Error(err)
							return
						}
						status, page := e.Parse(resp)
						posted.Add(1)
						if status == http.StatusUnprocessableEntity && len(textOf(find(page, "run-problem"))) <= 300 {
							refused.Add(1)
						}
						if strings.Contains(textOf(page), "root:x") {
							leaked.Add(1)
						}
					}
				}
			})
		}
		wg.Wait()
		t.Logf("scripts folder %v: %d hostile posts, %d refused with a short reason, %d leaked file text, %d reached the runtime",
			dir != "", posted.Load(), refused.Load(), leaked.Load(), len(e.runner.Requests()))
		if refused.Load() != posted.Load() || leaked.Load() != 0 || len(e.runner.Requests()) != 0 {
			t.Errorf("refused %d of %d, leaked %d, started %d", refused.Load(), posted.Load(), leaked.Load(), len(e.runner.Requests()))
		}
		if status, _ := e.Get("/runs/new"); status != http.StatusOK {
			t.Errorf("after the storm GET /runs/new = %d", status)
		}
	}
}

// randomPath is a hostile path: parent steps, absolute system files,
// devices, NUL bytes and long names, mixed.
func randomPath(rng *rand.Rand) string {
	parts := []string{"..", "/etc/passwd", "/dev/zero", "/proc/self/environ", "\x00", "link.yaml", "%2e%2e", "~", strings.Repeat("z", 300)}
	var b strings.Builder
	for range 1 + rng.IntN(6) {
		b.WriteString(parts[rng.IntN(len(parts))])
		b.WriteString("/")
	}
	return fmt.Sprint(b.String(), rng.IntN(1000))
}
