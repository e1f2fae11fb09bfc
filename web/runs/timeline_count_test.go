package runs

import (
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

func TestNotOKIsEveryFinalStatusButOK(t *testing.T) {
	for _, s := range trace.Statuses() {
		want := s != trace.StatusOK && s != trace.StatusRunning
		if NotOK(s) != want {
			t.Errorf("NotOK(%s) = %v, want %v", s, !want, want)
		}
	}
	if NotOK(statusQueued) || !NotOK("limit") {
		t.Error("queued is waiting, not failed; a new final status such as limit is not ok")
	}
}

// failedChain is a root that failed because its delegation failed because
// the child's model call failed, plus an earlier denied tool call elsewhere.
func failedChain() (trace.Run, []trace.Span) {
	run := trace.Run{ID: "r1", Agent: "coord", Status: trace.StatusError, StartedAt: ms(0), EndedAt: ms(1000)}
	deleg := sp("d1", "root", trace.KindExecuteTool, "delegate", 100, 900, trace.StatusError)
	deleg.Attributes[semconv.AttrTargetAgent] = "worker"
	return run, []trace.Span{
		sp("root", "", trace.KindInvokeAgent, "coord", 0, 1000, trace.StatusError),
		deleg,
		sp("w", "d1", trace.KindInvokeAgent, "worker", 110, 890, trace.StatusError),
		sp("wchat", "w", trace.KindChat, "demo", 120, 300, trace.StatusError),
		sp("late", "root", trace.KindExecuteTool, "filesystem.read_file", 950, 960, trace.StatusDenied),
	}
}

func TestNextErrorStartsWhereTheFailureBegan(t *testing.T) {
	run, spans := failedChain()
	tl := BuildTimeline(run, spans, ms(5000))
	if tl.FirstError != "wchat" {
		t.Errorf("first error = %q, want the child's model call where the failure began", tl.FirstError)
	}
	rows := rowsByID(tl)
	for id, want := range map[string]bool{"root": false, "d1": false, "w": false, "wchat": true, "late": true} {
		if got := strings.Contains(rowClass(rows[id]), "origin"); got != want {
			t.Errorf("%s is a jump target = %v, want %v", id, got, want)
		}
	}
}

func TestCountersAgree(t *testing.T) {
	run, spans := failedChain()
	tl := BuildTimeline(run, spans, ms(5000))
	root := rowsByID(tl)["root"]
	sum := 0
	for _, r := range tl.Rollup {
		sum += r.NotOK
	}
	if tl.NotOK != 5 || root.Sub.NotOK+1 != tl.NotOK || sum != tl.NotOK {
		t.Errorf("not ok: axis %d, root's subtree %d (+1 itself), rollup %d; want all 5", tl.NotOK, root.Sub.NotOK, sum)
	}
}

func TestChildrenAreOrderedByStartTime(t *testing.T) {
	run, spans := fanOut()
	// the store hands them back in another order (say by id)
	spans[1], spans[6] = spans[6], spans[1]
	spans[2], spans[3] = spans[3], spans[2]
	spans[3].StartedAt = ms(150) // dA now starts after dB
	tl := BuildTimeline(run, spans, ms(5000))
	var got []string
	for _, c := range tl.Roots[0].Children {
		got = append(got, c.ID)
	}
	if strings.Join(got, " ") != "chat1 dB dA chat2" {
		t.Errorf("children = %v, want by start time", got)
	}
}

func TestAQueuedDelegationShowsQueued(t *testing.T) {
	run, spans := fanOut()
	run.Status, run.EndedAt = trace.StatusRunning, ms(0)
	d := &spans[3]
	d.Status, d.EndedAt = trace.StatusRunning, zeroTime
	d.Events = []trace.Event{{Time: ms(100), Name: semconv.EventQueued}}
	tl := BuildTimeline(run, spans[:4], ms(500))
	if got := rowsByID(tl)["dB"].Status; got != statusQueued {
		t.Errorf("waiting delegation shows %s, want queued", got)
	}
	d.Events = append(d.Events, trace.Event{Time: ms(200), Name: semconv.EventAdmitted})
	tl = BuildTimeline(run, spans[:4], ms(500))
	if got := rowsByID(tl)["dB"].Status; got != trace.StatusRunning {
		t.Errorf("admitted delegation shows %s, want running", got)
	}
}

func TestRollupShowsTimeSoFarWhileRunning(t *testing.T) {
	run, spans := fanOut()
	run.Status = trace.StatusRunning
	spans[0].Status, spans[0].EndedAt = trace.StatusRunning, zeroTime
	tl := BuildTimeline(run, spans[:2], ms(2500))
	if got := tl.Rollup[0].Time; got != "2.50 s" {
		t.Errorf("running agent's time = %q, want the 2.50 s so far", got)
	}
}

func TestSpanTitlesSayWhatHappened(t *testing.T) {
	_, spans := failedChain()
	for i, want := range []string{"Agent coord", "Delegation to worker", "Agent worker", "Model call (demo)", "Tool call filesystem.read_file"} {
		if got := spanTitle(spans[i]); got != want {
			t.Errorf("title of %s = %q, want %q", spans[i].ID, got, want)
		}
	}
}

func TestDecisionTextDoesNotRepeatTheVerdict(t *testing.T) {
	for _, c := range []struct {
		d    DecisionView
		want string
	}{
		{DecisionView{Allowed: true, Reason: "allowed: matches allow pattern \"*\""}, "allowed: matches allow pattern \"*\""},
		{DecisionView{Allowed: false, Reason: "denied by agent \"a\": deny pattern \"x\""}, "denied by agent \"a\": deny pattern \"x\""},
		{DecisionView{Allowed: true, Reason: "matches allow pattern \"*\""}, "allowed: matches allow pattern \"*\""},
	} {
		if got := c.d.Text(); got != c.want {
			t.Errorf("Text() = %q, want %q", got, c.want)
		}
	}
}

var zeroTime time.Time
