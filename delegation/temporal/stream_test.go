package temporal_test

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/trace"
)

// streamScript: stream starts a fast leaf and a slow tooly as one
// parallel_streaming turn; the leaf's result lands first (tooly still
// running), then a follow-up leaf is streamed and lands, then an early
// answer while tooly runs gets tooly's result for one more turn.
const streamScript = `stream:
  - calls:
      - {tool: delegate, args: {agent: leaf, task: fast, id: a}}
      - {tool: delegate, args: {agent: tooly, task: slow, id: b}}
  - calls: [{tool: delegate, args: {agent: leaf, task: follow up, id: c}}]
  - say: early
  - say: all landed
leaf:
  - say: leaf answer
  - say: leaf again
tooly:
  - {say: read slowly, latency: 1500ms}
`

// heardModel is the script model that keeps what each call was given.
type heardModel struct {
	model.LLM
	mu   sync.Mutex
	msgs [][]model.Message
}

func (h *heardModel) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	h.mu.Lock()
	h.msgs = append(h.msgs, slices.Clone(req.Messages))
	h.mu.Unlock()
	return h.LLM.Generate(ctx, req)
}

var durationMS = regexp.MustCompile(`"duration_ms":\d+`)

// unasked is what the model was given unasked (streamed results landed,
// results given after an early answer), with durations left out.
func (h *heardModel) unasked() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, msgs := range h.msgs {
		for _, m := range msgs {
			c := durationMS.ReplaceAllString(m.Content, `"duration_ms":0`)
			if m.Role == model.RoleUser && (strings.HasPrefix(c, "Delegation results") || strings.HasPrefix(c, "These agents")) && !slices.Contains(out, c) {
				out = append(out, c) // each later call repeats the history
			}
		}
	}
	return out
}

// parallel_streaming runs on Temporal as in-process: the results land
// between turns as they come, with the ones still running named, and the
// trace and what the model was given are the in-process run's.
func TestParallelStreamingOnTemporalGivesResultsAsTheyLand(t *testing.T) {
	var heard []*heardModel
	newF := func() *fixture {
		sm, err := script.Parse([]byte(streamScript))
		if err != nil {
			t.Fatal(err)
		}
		h := &heardModel{LLM: sm}
		heard = append(heard, h)
		return newFixture(t, streamScript, func(c *delegation.Config) {
			c.Models = model.Providers{"script": func(string) (model.LLM, error) { return h, nil }}
		})
	}
	_, got := compareRuns(t, newF, delegation.Request{Agent: "stream", Task: "go"})
	if got.Status != trace.StatusOK || got.Result != "all landed" {
		t.Fatalf("run = %+v", got)
	}
	want, have := heard[0].unasked(), heard[1].unasked()
	if strings.Join(want, "\n") != strings.Join(have, "\n") {
		t.Errorf("model was given on Temporal:\n%s\n\nin-process:\n%s", strings.Join(have, "\n"), strings.Join(want, "\n"))
	}
	if len(have) != 3 || !strings.Contains(have[0], `"agent_id":"a"`) || !strings.Contains(have[0], "Still running: b (tooly)") ||
		!strings.Contains(have[1], `"agent_id":"c"`) || !strings.Contains(have[2], `"agent_id":"b"`) {
		t.Errorf("model was given:\n%s", strings.Join(have, "\n"))
	}
}
