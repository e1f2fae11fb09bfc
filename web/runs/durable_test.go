package runs_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agentry/agentry/trace"
)

// A serve whose runner cannot reach Temporal (in-process) does not offer
// Cancel on a durable run and says where it can be cancelled. (With
// engine: temporal, TestADurableRunIsEveryServesOnTemporal in cmd/agentry
// cancels one from another serve on a real server.)
func TestCancelOfADurableRunWithoutTemporalSaysWhere(t *testing.T) {
	e := newRunsEnv(t)
	r := trace.Run{ID: "durable", Agent: "lead", Task: "x", Status: trace.StatusRunning, StartedAt: t0, Durable: true}
	if err := e.store.Apply(context.Background(), []trace.Run{r}, nil); err != nil {
		t.Fatal(err)
	}
	_, doc := e.Get("/runs/durable")
	if find(doc, "cancel-run") != nil {
		t.Error("a durable run offers Cancel on a serve that cannot reach Temporal")
	}
	status, page, _ := e.Post("/runs/durable/cancel", url.Values{}, csrfOf(doc))
	if msg := textOf(find(page, "error-message")); status != http.StatusConflict || !strings.Contains(msg, "on Temporal") {
		t.Errorf("status %d %q, want 409 saying the run is on Temporal", status, msg)
	}
}
