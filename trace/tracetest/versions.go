package tracetest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// RunVersionTests is the conformance suite of trace.VersionStore and
// trace.EvalStore; the stores open returns must implement both.
func RunVersionTests(t *testing.T, open OpenFunc) {
	runCases(t, []testCase[versionStore]{
		{"versions list newest first and read back with their content", testVersionsRoundTrip},
		{"the newest version is not added twice", testVersionNotTwice},
		{"a hash prefix finds its version, an ambiguous one says so", testVersionPrefix},
		{"a deletion is a version and a restore after it is another", testVersionDeleted},
		{"the latest version of every name is listed", testLatestVersions},
		{"invalid versions are refused", testVersionInvalid},
		{"two writers adding one change record it once", testVersionRace},
		{"the runs that used each version of an agent are listed", testVersionUses},
		{"the runs that used each version of a workflow are listed", testWorkflowVersionUses},
		{"an eval reads back with its cases", testEvalRoundTrip},
		{"evals list newest first, by suite", testEvalsList},
		{"a case's run finds its eval", testEvalOfRun},
	}, func(t *testing.T) versionStore {
		s := open(t)
		t.Cleanup(func() { s.Close() })
		vs, ok := s.(versionStore)
		if !ok {
			t.Fatalf("%T is not a trace.VersionStore and a trace.EvalStore", s)
		}
		return vs
	})
}

// versionStore is what RunVersionTests tests: a store that keeps versions
// and evals.
type versionStore interface {
	trace.Store
	trace.VersionStore
	trace.EvalStore
}

func content(s string) (string, []byte) {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:]), []byte(s)
}

func version(name, text string, at time.Time) trace.Version {
	h, c := content(text)
	return trace.Version{Kind: "agent", Name: name, Path: name + ".md", Hash: h, Content: c,
		Time: at, Source: "web", Summary: "edited"}
}

func mustAddVersion(t *testing.T, s trace.VersionStore, v trace.Version) bool {
	t.Helper()
	added, err := s.AddVersion(ctx(t), v)
	if err != nil {
		t.Fatalf("AddVersion(%s %s): %v", v.Name, v.Hash, err)
	}
	return added
}

func testVersionsRoundTrip(t *testing.T, s versionStore) {
	v1, v2 := version("lead", "one", at(0)), version("lead", "two", at(10))
	v2.Source, v2.Summary, v2.Path = "filesystem", "description changed", "team/lead.md"
	mustAddVersion(t, s, v1)
	mustAddVersion(t, s, version("other", "x", at(5)))
	mustAddVersion(t, s, v2)
	list, err := s.Versions(ctx(t), "agent", "lead")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Hash != v2.Hash || list[1].Hash != v1.Hash {
		t.Fatalf("Versions = %+v, want v2 then v1", list)
	}
	got := list[0]
	if got.Source != "filesystem" || got.Summary != "description changed" || got.Path != "team/lead.md" ||
		!got.Time.Equal(at(10)) || got.Time.Location() != time.UTC || got.Content != nil {
		t.Errorf("listed version = %+v", got)
	}
	full, err := s.Version(ctx(t), "agent", "lead", v1.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if string(full.Content) != "one" || full.Source != "web" {
		t.Errorf("Version(v1) = %+v with content %q", full, full.Content)
	}
	latest, err := s.LatestVersion(ctx(t), "agent", "lead")
	if err != nil || string(latest.Content) != "two" {
		t.Errorf("LatestVersion = %q, %v; want two", latest.Content, err)
	}
	if _, err := s.LatestVersion(ctx(t), "agent", "nobody"); !errors.Is(err, trace.ErrNotFound) {
		t.Errorf("LatestVersion of an unknown agent: %v, want ErrNotFound", err)
	}
	if _, err := s.LatestVersion(ctx(t), "workflow", "lead"); !errors.Is(err, trace.ErrNotFound) {
		t.Errorf("LatestVersion of another kind: %v, want ErrNotFound", err)
	}
}

func testVersionNotTwice(t *testing.T, s versionStore) {
	if !mustAddVersion(t, s, version("lead", "one", at(0))) {
		t.Fatal("the first version was not added")
	}
	if mustAddVersion(t, s, version("lead", "one", at(5))) {
		t.Error("the same content was added again as the newest version")
	}
	mustAddVersion(t, s, version("lead", "two", at(10)))
	if !mustAddVersion(t, s, version("lead", "one", at(20))) {
		t.Error("going back to an older content is a new version, and was not added")
	}
	list, _ := s.Versions(ctx(t), "agent", "lead")
	if len(list) != 3 {
		t.Errorf("%d versions, want 3: %+v", len(list), list)
	}
	v, err := s.Version(ctx(t), "agent", "lead", list[0].Hash)
	if err != nil || !v.Time.Equal(at(20)) {
		t.Errorf("a hash recorded twice reads back as its newest version: %+v, %v", v, err)
	}
}

func testVersionPrefix(t *testing.T, s versionStore) {
	a := trace.Version{Kind: "agent", Name: "lead", Hash: "abcd1111" + fmt.Sprintf("%056d", 0), Content: []byte("a"), Time: at(0), Source: "web"}
	b := trace.Version{Kind: "agent", Name: "lead", Hash: "abcd2222" + fmt.Sprintf("%056d", 0), Content: []byte("b"), Time: at(1), Source: "web"}
	mustAddVersion(t, s, a)
	mustAddVersion(t, s, b)
	if v, err := s.Version(ctx(t), "agent", "lead", "abcd1"); err != nil || string(v.Content) != "a" {
		t.Errorf("Version(abcd1) = %q, %v", v.Content, err)
	}
	if _, err := s.Version(ctx(t), "agent", "lead", "abcd"); !errors.Is(err, trace.ErrAmbiguous) {
		t.Errorf("Version(abcd): %v, want ErrAmbiguous", err)
	}
	if _, err := s.Version(ctx(t), "agent", "lead", "ffff"); !errors.Is(err, trace.ErrNotFound) {
		t.Errorf("Version(ffff): %v, want ErrNotFound", err)
	}
	if _, err := s.Version(ctx(t), "agent", "lead", "ab"); !errors.Is(err, trace.ErrInvalid) {
		t.Errorf("Version(ab): %v, want ErrInvalid", err)
	}
	if _, err := s.Version(ctx(t), "agent", "lead", "ab%_"); !errors.Is(err, trace.ErrInvalid) {
		t.Errorf("Version(ab%%_): %v, want ErrInvalid (no pattern characters reach a query)", err)
	}
}

func testVersionDeleted(t *testing.T, s versionStore) {
	mustAddVersion(t, s, version("lead", "one", at(0)))
	del := trace.Version{Kind: "agent", Name: "lead", Path: "lead.md", Deleted: true, Time: at(5), Source: "filesystem", Summary: "deleted"}
	if !mustAddVersion(t, s, del) {
		t.Fatal("the deletion was not added")
	}
	if mustAddVersion(t, s, del) {
		t.Error("a second deletion was added")
	}
	if !mustAddVersion(t, s, version("lead", "one", at(10))) {
		t.Error("the file restored after its deletion was not added")
	}
	list, _ := s.Versions(ctx(t), "agent", "lead")
	if len(list) != 3 || !list[1].Deleted || list[1].Hash != "" {
		t.Errorf("Versions = %+v, want one, deleted, one", list)
	}
}

func testLatestVersions(t *testing.T, s versionStore) {
	mustAddVersion(t, s, version("a", "a1", at(0)))
	mustAddVersion(t, s, version("a", "a2", at(1)))
	mustAddVersion(t, s, version("b", "b1", at(2)))
	wf := version("a", "w", at(3))
	wf.Kind = "workflow"
	mustAddVersion(t, s, wf)
	got, err := s.LatestVersions(ctx(t), "agent")
	if err != nil {
		t.Fatal(err)
	}
	ha, _ := content("a2")
	hb, _ := content("b1")
	if len(got) != 2 || got["a"].Hash != ha || got["b"].Hash != hb || got["a"].Content != nil {
		t.Errorf("LatestVersions = %+v", got)
	}
}

func testVersionInvalid(t *testing.T, s versionStore) {
	for _, v := range []trace.Version{
		{Kind: "agent", Hash: "abcd", Content: []byte("x")},
		{Name: "lead", Hash: "abcd", Content: []byte("x")},
		{Kind: "agent", Name: "lead", Content: []byte("x")},
		{Kind: "agent", Name: "lead", Deleted: true, Hash: "abcd"},
	} {
		if _, err := s.AddVersion(ctx(t), v); !errors.Is(err, trace.ErrInvalid) {
			t.Errorf("AddVersion(%+v): %v, want ErrInvalid", v, err)
		}
	}
}

func testVersionRace(t *testing.T, s versionStore) {
	var wg sync.WaitGroup
	added := make(chan bool, 8)
	for range 8 {
		wg.Go(func() {
			ok, err := s.AddVersion(ctx(t), version("lead", "same", at(0)))
			if err != nil {
				t.Error(err)
			}
			added <- ok
		})
	}
	wg.Wait()
	close(added)
	n := 0
	for ok := range added {
		if ok {
			n++
		}
	}
	list, _ := s.Versions(ctx(t), "agent", "lead")
	if n != 1 || len(list) != 1 {
		t.Errorf("%d writers reported adding, %d versions stored; want 1 and 1", n, len(list))
	}
}

func testVersionUses(t *testing.T, s versionStore) {
	invoke := func(runID, id, parent, agent, hash string, start int) trace.Span {
		sp := span(runID, id, parent, trace.KindInvokeAgent, agent, start, start+5)
		sp.Attributes = map[string]any{semconv.AttrAgentVersion: hash}
		return sp
	}
	mustApply(t, s, []trace.Run{run("r1", "lead", "t", 0), run("r2", "lead", "t", 100)}, []trace.Span{
		invoke("r1", "s1", "", "lead", "aaaa", 0),
		invoke("r1", "s2", "s1", "helper", "h111", 1),
		invoke("r1", "s3", "s1", "helper", "h111", 2),
		invoke("r2", "s1", "", "lead", "bbbb", 100),
		invoke("r2", "s2", "s1", "helper", "h111", 101),
		invoke("r2", "s3", "s1", "helper", "h222", 102),
	})
	uses, err := s.VersionUses(ctx(t), "agent", "helper", 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, u := range uses {
		got[u.RunID+"@"+u.Hash] = true
	}
	if len(uses) != 3 || !got["r1@h111"] || !got["r2@h111"] || !got["r2@h222"] || uses[0].RunID != "r2" || uses[2].RunID != "r1" {
		t.Errorf("VersionUses(helper) = %+v", uses)
	}
	if !uses[2].StartedAt.Equal(at(0)) || uses[2].Status != trace.StatusRunning {
		t.Errorf("a use carries its run's start and status: %+v", uses[2])
	}
	if lead, _ := s.VersionUses(ctx(t), "agent", "lead", 1); len(lead) != 1 || lead[0].Hash != "bbbb" {
		t.Errorf("VersionUses(lead, 1) = %+v, want the newest run only", lead)
	}
}

// A workflow run records its file's version on its invoke_workflow root,
// which names the workflow in an attribute (its Agent is empty); an agent
// of the same name is another file.
func testWorkflowVersionUses(t *testing.T, s versionStore) {
	root := func(runID, workflow, hash string, start int) trace.Span {
		sp := span(runID, "root", "", trace.KindInvokeWorkflow, "", start, start+5)
		sp.Name = "invoke_workflow " + workflow
		sp.Attributes = map[string]any{semconv.AttrWorkflow: workflow, semconv.AttrWorkflowFile: workflow + ".yaml"}
		if hash != "" {
			sp.Attributes[semconv.AttrWorkflowVersion] = hash
		}
		return sp
	}
	agent := span("w2", "a1", "root", trace.KindInvokeAgent, "digest", 101, 102)
	agent.Attributes = map[string]any{semconv.AttrAgentVersion: "a999"}
	mustApply(t, s, []trace.Run{run("w0", "digest", "{}", 0), run("w1", "digest", "{}", 50), run("w2", "digest", "{}", 100), run("w3", "other", "{}", 150)},
		[]trace.Span{root("w0", "digest", "", 0), root("w1", "digest", "d111", 50), root("w2", "digest", "d222", 100), agent, root("w3", "other", "d111", 150)})
	uses, err := s.VersionUses(ctx(t), "workflow", "digest", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range uses {
		got = append(got, u.RunID+"@"+u.Hash)
	}
	if fmt.Sprint(got) != "[w2@d222 w1@d111 w0@]" {
		t.Errorf("VersionUses(workflow, digest) = %v, want [w2@d222 w1@d111 w0@] (a run from before versions were recorded has none)", got)
	}
	if len(uses) > 0 && (!uses[0].StartedAt.Equal(at(100)) || uses[0].Status != trace.StatusRunning) {
		t.Errorf("a use carries its run's start and status: %+v", uses[0])
	}
	if agents, _ := s.VersionUses(ctx(t), "agent", "digest", 0); len(agents) != 1 || agents[0].Hash != "a999" {
		t.Errorf("VersionUses(agent, digest) = %+v, want the agent's one run, not the workflow's", agents)
	}
	if skills, err := s.VersionUses(ctx(t), "skill", "digest", 0); len(skills) != 0 || err != nil {
		t.Errorf("VersionUses(skill) = %+v, %v; runs record no skill versions", skills, err)
	}
}

func mustAddEval(t *testing.T, s trace.EvalStore, e trace.Eval, cases []trace.EvalCase) {
	t.Helper()
	if err := s.AddEval(ctx(t), e, cases); err != nil {
		t.Fatalf("AddEval(%s): %v", e.ID, err)
	}
}

func sampleEval(id, suite string, start int) (trace.Eval, []trace.EvalCase) {
	score := 0.5
	e := trace.Eval{ID: id, Suite: suite, Target: "lead", Kind: "agent", Version: "abcd", Label: "current",
		Versions: map[string]string{"lead": "abcd", "helper": "ef01"}, StartedAt: at(start), EndedAt: at(start + 50), Passed: 1, Failed: 1}
	cases := []trace.EvalCase{
		{EvalID: id, Name: "answers", RunID: id + "-r1", Passed: true, Checks: []trace.EvalCheck{{Kind: "output_contains", Passed: true, Detail: "found summary"}},
			Output: "a summary", Status: trace.StatusOK, InputTokens: 10, OutputTokens: 5, CostUSD: 0.25, Duration: 1500 * time.Millisecond},
		{EvalID: id, Name: "delegates", RunID: id + "-r2", Passed: false, Failures: []string{"trajectory: expected [helper], got []"},
			Checks: []trace.EvalCheck{
				{Kind: "trajectory", Passed: false, Detail: "expected [helper], got []", Score: &score},
				{Kind: "rubric", Passed: false, Detail: "judged fail", Judge: &trace.Judgement{Model: "script", Rubric: "cites", Answer: "fail", Reasoning: "no sources"}},
			},
			Status: trace.StatusError},
	}
	return e, cases
}

func testEvalRoundTrip(t *testing.T, s versionStore) {
	e, cases := sampleEval("e1", "research", 0)
	mustAddEval(t, s, e, cases)
	gotE, gotC, err := s.Eval(ctx(t), "e1")
	if err != nil {
		t.Fatal(err)
	}
	if gotE.Suite != "research" || gotE.Versions["helper"] != "ef01" || !gotE.StartedAt.Equal(at(0)) || gotE.Failed != 1 || gotE.Label != "current" {
		t.Errorf("Eval = %+v", gotE)
	}
	if len(gotC) != 2 || gotC[0].Name != "answers" || gotC[1].Name != "delegates" {
		t.Fatalf("cases = %+v", gotC)
	}
	c := gotC[1]
	if c.Passed || len(c.Failures) != 1 || len(c.Checks) != 2 || c.Checks[0].Score == nil || *c.Checks[0].Score != 0.5 ||
		c.Checks[1].Judge == nil || c.Checks[1].Judge.Reasoning != "no sources" {
		t.Errorf("failed case = %+v", c)
	}
	if a := gotC[0]; a.CostUSD != 0.25 || a.Duration != 1500*time.Millisecond || a.InputTokens != 10 || a.Output != "a summary" {
		t.Errorf("passed case = %+v", a)
	}
	if _, _, err := s.Eval(ctx(t), "nope"); !errors.Is(err, trace.ErrNotFound) {
		t.Errorf("Eval(nope): %v, want ErrNotFound", err)
	}
	bad := cases
	bad[0].EvalID = "other"
	if err := s.AddEval(ctx(t), trace.Eval{ID: "e2", Suite: "x"}, bad); !errors.Is(err, trace.ErrInvalid) {
		t.Errorf("a case of another eval: %v, want ErrInvalid", err)
	}
}

func testEvalsList(t *testing.T, s versionStore) {
	for i, suite := range []string{"a", "b", "a"} {
		e, cases := sampleEval(fmt.Sprintf("e%d", i), suite, i*100)
		mustAddEval(t, s, e, cases)
	}
	list, err := s.Evals(ctx(t), "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != "e2" || list[1].ID != "e0" {
		t.Errorf("Evals(a) = %+v", list)
	}
	if all, _ := s.Evals(ctx(t), "", 2); len(all) != 2 || all[0].ID != "e2" || all[1].ID != "e1" {
		t.Errorf("Evals(all, 2) = %+v", all)
	}
}

func testEvalOfRun(t *testing.T, s versionStore) {
	e, cases := sampleEval("e1", "research", 0)
	mustAddEval(t, s, e, cases)
	ge, gc, err := s.EvalOfRun(ctx(t), "e1-r2")
	if err != nil || ge.ID != "e1" || gc.Name != "delegates" {
		t.Errorf("EvalOfRun = %+v, %+v, %v", ge, gc, err)
	}
	if _, _, err := s.EvalOfRun(ctx(t), "elsewhere"); !errors.Is(err, trace.ErrNotFound) {
		t.Errorf("EvalOfRun(elsewhere): %v, want ErrNotFound", err)
	}
}
