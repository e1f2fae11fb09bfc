package delegation

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

func TestAParentChoosesABatchsExecutionWithinWhatItsFileAllows(t *testing.T) {
	cases := []struct {
		name, file, asked, want, wantAsked string
		overlap                            bool
	}{
		{"a parallel file may ask for sequential", "parallel", "sequential", "sequential", "", false},
		{"a sequential file keeps its batches sequential", "sequential", "parallel", "sequential", "parallel", false},
		{"a parallel file runs in parallel when nothing is asked", "parallel", "", "parallel", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				exec := ""
				if tc.asked != "" {
					exec = ", execution: " + tc.asked
				}
				f := setup(t, twoChildren(tc.file), `
coord:
  - calls:
      - {tool: delegate, args: {agent: a, task: "part A"`+exec+`}}
      - {tool: delegate, args: {agent: b, task: "part B"}}
  - say: "done"
a:
  - {latency: 40ms, say: "A result"}
b:
  - {latency: 40ms, say: "B result"}
`, nil)
				if res := f.run(t, "coord", "x"); res.Status != trace.StatusOK {
					t.Fatalf("result = %+v", res)
				}
				a, b := f.sink.one(t, "invoke_agent a"), f.sink.one(t, "invoke_agent b")
				if overlap(a, b) != tc.overlap {
					t.Errorf("children overlap = %v, want %v", overlap(a, b), tc.overlap)
				}
				sp := f.sink.delegations()["a"]
				if sp.Attributes[attrExecution] != tc.want || (tc.wantAsked != "" && sp.Attributes[attrExecutionRequested] != tc.wantAsked) {
					t.Errorf("span attributes = %v, want execution %s (asked %q)", sp.Attributes, tc.want, tc.wantAsked)
				}
			})
		})
	}
}

func TestFreeTextContextReachesTheChildAndAModeStaysAMode(t *testing.T) {
	f := setup(t, map[string]string{"coord": "subagents:\n  allow: [a, b]\n", "a": "", "b": ""}, `
coord:
  - calls:
      - {tool: delegate, args: {agent: a, task: "write it", context: "Bob prefers short mails."}}
      - {tool: delegate, args: {agent: b, task: "check it", context: full_history}}
  - say: done
a:
  - say: "written"
b:
  - say: "checked"
`, nil)
	rec := &recorder{}
	sm := f.rt.cfg.Models["script"]
	f.rt.cfg.Models = model.Providers{"script": func(s string) (model.LLM, error) {
		llm, err := sm(s)
		rec.LLM = llm
		return rec, err
	}}
	if res := f.run(t, "coord", "mail Bob"); res.Status != trace.StatusOK {
		t.Fatalf("result = %+v", res)
	}
	first := rec.reqs["a"][0].Messages[0].Content
	if !strings.Contains(first, "Bob prefers short mails.") || !strings.Contains(first, "write it") {
		t.Errorf("a's first message = %q, want the context and the task", first)
	}
	ds := f.sink.delegations()
	if ds["a"].Attributes[semconv.AttrContextMode] != "task_only" || ds["b"].Attributes[semconv.AttrContextMode] != "full" {
		t.Errorf("context modes a=%v b=%v, want task_only and full", ds["a"].Attributes[semconv.AttrContextMode], ds["b"].Attributes[semconv.AttrContextMode])
	}
	if n := len(rec.reqs["b"][0].Messages); n < 2 {
		t.Errorf("b got %d messages, want the parent's history and its task", n)
	}
}

func TestAnEmptyAnswerIsAnError(t *testing.T) {
	f := setup(t, map[string]string{"coord": "subagents:\n  allow: [a]\n", "a": ""}, `
coord:
  - calls: [{tool: delegate, args: {agent: a, task: "say something"}}]
  - say: "a said nothing"
a:
  - say: "   "
`, nil)
	if res := f.run(t, "coord", "x"); res.Status != trace.StatusOK {
		t.Fatalf("result = %+v", res)
	}
	r := toolResult(t, f.sink.delegations()["a"])
	if r.Status != trace.StatusError || r.Error != "empty answer" {
		t.Errorf("delegation result = %+v, want error \"empty answer\"", r)
	}
}

func TestAnAgentsSamplingSettingsReachItsModelRequests(t *testing.T) {
	sm, err := script.Parse([]byte("a:\n  - say: ok\n"))
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{LLM: sm}
	f := setup(t, map[string]string{"a": "temperature: 0.2\nmax_tokens: 900\n"}, "a:\n  - say: ok\n", func(c *Config) {
		c.Models = model.Providers{"script": func(string) (model.LLM, error) { return rec, nil }}
	})
	if res := f.run(t, "a", "x"); res.Status != trace.StatusOK {
		t.Fatalf("result = %+v", res)
	}
	req := rec.reqs["a"][0]
	if req.Temperature == nil || *req.Temperature != 0.2 || req.MaxTokens != 900 {
		t.Errorf("request sampling = %v, %d; want 0.2 and 900", req.Temperature, req.MaxTokens)
	}
}
