package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/web/api"
	"github.com/agentry/agentry/web/internal/webtest"
)

// A run started through the API is a run like the start form's: the web
// UI shows it live (running, then its end) and offers Cancel, because the
// server holds it like the runs its pages start.
func TestBrowserARunStartedThroughTheAPIShowsLiveInTheUI(t *testing.T) {
	site := webtest.StartSite(t, agents, nil)
	if err := os.WriteFile(filepath.Join(site.Scripts, "live.yaml"), []byte(`lead:
  - calls: [{tool: delegate, args: {agent: writer, task: draft}}]
  - say: "led"
writer:
  - {latency: 1500ms, say: "written"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	// lead asks before delegating: the API answers the ask too.
	body, _ := json.Marshal(map[string]any{"agent": "lead", "task": "Lead the draft", "model": "script:live.yaml"})
	resp, err := http.Post(site.URL+api.Prefix+"/runs", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var started api.Started
	json.NewDecoder(resp.Body).Decode(&started)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || started.Run.ID == "" || resp.Header.Get("Location") != api.Prefix+"/runs/"+started.Run.ID {
		t.Fatalf("POST /api/v1/runs = %d %+v (Location %q)", resp.StatusCode, started, resp.Header.Get("Location"))
	}
	browser := webtest.NewBrowser(t)
	webtest.Run(t, browser, chromedp.Navigate(site.URL+"/runs/"+started.Run.ID))
	webtest.WaitText(t, browser, "run-status", "running")
	webtest.WaitText(t, browser, "cancel-run", "Cancel run")
	webtest.WaitText(t, browser, "run-task", "Lead the draft")

	// The ask waits; answering it through the API lets the run go on, and
	// the page follows it to its end without a reload.
	var pending struct{ Approvals []struct{ ID string } }
	for deadline := time.Now().Add(15 * time.Second); len(pending.Approvals) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("lead's ask never waited")
		}
		r, err := http.Get(site.URL + api.Prefix + "/approvals?status=pending&run_id=" + started.Run.ID)
		if err != nil {
			t.Fatal(err)
		}
		json.NewDecoder(r.Body).Decode(&pending)
		r.Body.Close()
	}
	answer, _ := json.Marshal(map[string]any{"approve": true})
	r, err := http.Post(site.URL+api.Prefix+"/approvals/"+pending.Approvals[0].ID, "application/json", bytes.NewReader(answer))
	if err != nil || r.StatusCode != http.StatusOK {
		t.Fatalf("answer: %v %v", r, err)
	}
	r.Body.Close()
	webtest.WaitJS(t, browser, `document.body.innerText.includes("writer")`, "the delegation to writer on the timeline")
	webtest.WaitText(t, browser, "run-status", "ok")
	webtest.Screenshot(t, browser, "api-run-live")
}
