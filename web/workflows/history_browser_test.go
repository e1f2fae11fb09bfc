package workflows_test

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/demo"
	"github.com/agentry/agentry/delegation/versions"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"

	"github.com/agentry/agentry/web"
	"github.com/agentry/agentry/web/internal/webtest"
)

// historySite is a UI over a watched workflows folder holding the survey
// workflow in file, whose changes become versions as in serve: listed
// under the workflow's name (survey), while the page is addressed by the
// file's stem (opinion-survey, say).
type historySite struct {
	*webtest.BrowserServer
	flows, file string
	cat         *workflow.Catalog
	traces      *trace.Recorder
	runtime     *delegation.Runtime
}

func startHistorySite(t *testing.T, file string) *historySite {
	t.Helper()
	s := &historySite{flows: t.TempDir(), file: file, cat: workflow.NewCatalog(nil)}
	if err := os.WriteFile(filepath.Join(s.flows, file), []byte(survey), 0o644); err != nil {
		t.Fatal(err)
	}
	store := memory.New()
	s.traces = trace.NewRecorder(store, trace.RecorderConfig{})
	t.Cleanup(func() { s.traces.Close(context.Background()) })
	var err error
	s.runtime, err = delegation.New(delegation.Config{Agents: registry.New(nil), DefaultModel: "demo", Sink: s.traces,
		Models: model.Providers{"demo": func(string) (model.LLM, error) { return &demo.Model{}, nil }}})
	if err != nil {
		t.Fatal(err)
	}
	rec := versions.New(store, slog.New(slog.DiscardHandler))
	t.Cleanup(func() { rec.Close(context.Background()) })
	contents := folder.Versioned(s.cat, registry.KindWorkflow, func(rel string, _ []byte) string {
		f, _ := s.cat.Snapshot().File(rel)
		return cmp.Or(f.Name, workflow.Stem(rel)) // as serve names them (cmd/agentry workflowName)
	}, rec.Hook)
	f, err := folder.OpenContents(s.flows, contents, folder.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	// What is there at start is a version, as serve's catch-up records it.
	if err := rec.Record(context.Background(), registry.FileChanged{Kind: registry.KindWorkflow, Name: "survey",
		Path: file, Data: []byte(survey), Source: registry.SourceFiles}); err != nil {
		t.Fatal(err)
	}
	s.BrowserServer = webtest.StartBrowserServer(t, nil, func(c *web.Config) {
		c.Workflows, c.WorkflowFiles, c.WorkflowsDir, c.Versions = s.cat, folder.Sourced(f, registry.SourceWeb), s.flows, rec.Reads()
	})
	return s
}

// runSurvey runs the workflow file as it is on disk now, as serve's
// runtime does, and returns the run's ID once its trace is in the store.
func (s *historySite) runSurvey(t *testing.T) string {
	t.Helper()
	wf, probs := workflow.LoadFile(filepath.Join(s.flows, s.file), nil)
	if wf == nil {
		t.Fatal(probs)
	}
	inputs, err := workflow.ResolveInputs(wf, map[string]any{"topic": "tea"})
	if err != nil {
		t.Fatal(err)
	}
	res := workflow.Run(context.Background(), s.runtime, wf, "demo", workflow.Options{Inputs: inputs})
	if res.Status != workflow.StatusOK {
		t.Fatalf("the survey run ended %s: %s", res.Status, res.Error)
	}
	if err := s.traces.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	return res.RunID
}

// runsColumn is the History page's Runs cell of each version: hash: links.
func runsColumn(t *testing.T, ctx context.Context) string {
	t.Helper()
	return evalText(t, ctx, `[...document.querySelectorAll('[data-testid="version"]')].map(r => r.dataset.hash + ': ' +
		[...r.querySelectorAll('[data-testid="version-runs"] a')].map(a => a.textContent + '=' + a.getAttribute('href')).join(' ')).join('\n')`)
}

func (s *historySite) read(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.flows, s.file))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// versionRows are the History page's rows: hash | source | summary | current.
func versionRows(t *testing.T, ctx context.Context) []string {
	t.Helper()
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="version"]')).map(r =>
		[r.dataset.hash, r.querySelector('[data-testid="version-source"]').textContent.trim(), r.querySelector('[data-testid="version-summary"]').textContent.trim(),
		 !!r.querySelector('[data-testid="current-version"]')].join(' | '))`))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// A workflow's page and its editor link to the agent's History page: a
// save in the editor is listed at once, with the runs that ran each
// version (the workflow_version of their invoke_workflow root), two
// versions compare side by side,
// a restore is refused once another program changed the file since the
// page was opened, and then brings the first version back byte for byte
// as a version of its own.
func TestBrowserAWorkflowsHistoryListsTheSaveAndRestoresTheFirstVersion(t *testing.T) {
	s := startHistorySite(t, "opinion-survey.yaml")
	v1 := survey
	first := s.runSurvey(t)
	ctx := webtest.NewBrowser(t)
	run(t, ctx, chromedp.Navigate(s.URL+"/workflows/opinion-survey/edit"), chromedp.WaitReady(tid("workflow-yaml")))
	replaceInEditor(t, ctx, "Asks about a topic", "Asks about one topic")
	run(t, ctx, chromedp.Click(tid("save")))
	waitText(t, ctx, "saved", "opinion-survey.yaml")
	v2 := s.read(t)
	if v2 != strings.Replace(v1, "Asks about a topic", "Asks about one topic", 1) {
		t.Fatalf("on disk after the save:\n%s", v2)
	}
	second := s.runSurvey(t)

	webtest.Follow(t, ctx, tid("editor-history"), "versions")
	want := []string{
		registry.Hash([]byte(v2)) + " | web | workflow changed | true",
		registry.Hash([]byte(v1)) + " | filesystem | created (" + strconv.Itoa(strings.Count(v1, "\n")) + " lines) | false",
	}
	if rows := versionRows(t, ctx); strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("History lists\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	if got := evalText(t, ctx, `[...document.querySelectorAll('[data-testid="versions"] th')].map(h => h.textContent).join(',')`); got != "A,B,Version,When,Source,Change,Runs," {
		t.Errorf("the versions table's columns are %q, want a Runs column", got)
	}
	wantRuns := registry.Hash([]byte(v2)) + ": " + second[:8] + "=/runs/" + second + "\n" + registry.Hash([]byte(v1)) + ": " + first[:8] + "=/runs/" + first
	if got := runsColumn(t, ctx); got != wantRuns {
		t.Errorf("the Runs column lists\n%s\nwant each run under the version it ran\n%s", got, wantRuns)
	}
	if got := evalText(t, ctx, `document.querySelector('[data-testid="history-edit"]').getAttribute('href')`); got != "/workflows/opinion-survey/edit" {
		t.Errorf("the History page's Edit goes to %q", got)
	}
	screenshot(t, ctx, "workflow-history")

	webtest.Follow(t, ctx, tid("diff-submit"), "diff-File")
	waitText(t, ctx, "diff-File", "Asks about one topic")
	if n := evalText(t, ctx, `String(document.querySelectorAll('[data-testid="diff-File"] [data-testid="diff-row-chg"]').length)`); n != "1" {
		t.Errorf("%s changed lines between the two versions, want 1", n)
	}
	screenshot(t, ctx, "workflow-history-diff")

	// Another program writes the file while the page is open: the restore
	// is refused, the file keeps what it wrote, and the answer is History
	// as it is now, whose restore goes through on purpose.
	run(t, ctx, chromedp.Navigate(s.URL+"/workflows/opinion-survey"))
	webtest.Follow(t, ctx, tid("workflow-history"), "versions")
	v3 := strings.Replace(v2, "depth, type: number, default: 2", "depth, type: number, default: 3", 1)
	if err := os.WriteFile(filepath.Join(s.flows, "opinion-survey.yaml"), []byte(v3), 0o644); err != nil {
		t.Fatal(err)
	}
	// The refusal compares with the disk, and the page after it expects the
	// file as the disk has it, whether or not the folder's watcher saw the
	// write yet.
	restore := chromedp.CSS(`[data-testid="restore-form"][data-hash="` + registry.Hash([]byte(v1)) + `"] button`)
	run(t, ctx, chromedp.Click(restore))
	waitText(t, ctx, "restore-conflict", "Not restored: opinion-survey.yaml changed since the page was opened.")
	if got := s.read(t); got != v3 {
		t.Fatalf("the refused restore left the file\n%q\nwant the other program's\n%q", got, v3)
	}
	if got := evalText(t, ctx, `[...document.querySelectorAll('[data-testid="restore-form"] input[name="file_hash"]')].map(i => i.value).join(',')`); got != registry.Hash([]byte(v3))+","+registry.Hash([]byte(v3)) {
		t.Errorf("after the refusal the restore forms expect the file to be %q, want the other program's %s", got, registry.Hash([]byte(v3)))
	}
	screenshot(t, ctx, "workflow-history-refused")
	// The list after the restore shows v3 as a version: let the watcher
	// record it before the restore overwrites it.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if f, _ := s.cat.Snapshot().File("opinion-survey.yaml"); f.Hash == registry.Hash([]byte(v3)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the folder's watcher never saw the other program's write")
		}
	}

	run(t, ctx, chromedp.Click(restore))
	waitText(t, ctx, "restored-notice", "Restored version "+registry.Hash([]byte(v1))[:12])
	if got := s.read(t); got != v1 {
		t.Fatalf("after the restore the file is\n%q\nwant version 1\n%q", got, v1)
	}
	want = []string{
		registry.Hash([]byte(v1)) + " | web | restore of " + registry.Hash([]byte(v1))[:12] + ": workflow, inputs changed | true",
		registry.Hash([]byte(v3)) + " | filesystem | inputs changed | false",
		want[0][:len(want[0])-len("true")] + "false", want[1],
	}
	if rows := versionRows(t, ctx); strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("History after the restore lists\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
}

// A deleted workflow whose file is named as it is keeps its History at its
// old address (with no file, the stem is all there is to list versions
// under), and a restore brings the file back, a create.
func TestBrowserADeletedWorkflowIsRestoredFromItsHistory(t *testing.T) {
	s := startHistorySite(t, "survey.yaml")
	if err := os.Remove(filepath.Join(s.flows, "survey.yaml")); err != nil {
		t.Fatal(err)
	}
	ctx := webtest.NewBrowser(t)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		run(t, ctx, chromedp.Navigate(s.URL+"/workflows/survey/history"), chromedp.WaitReady("body"))
		if evalText(t, ctx, `document.querySelector('[data-testid="version"] td.mono')?.textContent.trim() ?? ""`) == "deleted" {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("History never listed the deletion:\n%s", evalText(t, ctx, `document.body.innerText`))
		}
	}
	run(t, ctx, chromedp.Click(`[data-testid="restore-form"][data-hash="`+registry.Hash([]byte(survey))+`"] button`))
	waitText(t, ctx, "restored-notice", "Restored version "+registry.Hash([]byte(survey))[:12])
	if got := s.read(t); got != survey {
		t.Fatalf("after the restore the file is\n%q\nwant\n%q", got, survey)
	}
	webtest.Follow(t, ctx, tid("history-edit"), "workflow-yaml")
}

// A deleted workflow's History is its own even when another file's
// workflow is named as its stem: the page lists the versions of the
// workflow that was in the file (survey, in opinion-survey.yaml), not the
// other file's, whose workflow is named opinion-survey; a restore brings
// the file back and its Edit link opens it. A stem no file ever had is
// not found, though a workflow is named so.
func TestBrowserADeletedWorkflowsHistoryIsItsOwnWhenAnotherIsNamedAsItsStem(t *testing.T) {
	s := startHistorySite(t, "opinion-survey.yaml")
	other := strings.Replace(survey, "name: survey", "name: opinion-survey", 1)
	ghost := strings.Replace(survey, "name: survey", "name: ghost", 1)
	for name, text := range map[string]string{"other.yaml": other, "haunted.yaml": ghost} {
		if err := os.WriteFile(filepath.Join(s.flows, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(s.flows, "opinion-survey.yaml")); err != nil {
		t.Fatal(err)
	}
	ctx := webtest.NewBrowser(t)
	rowsAt := func(stem string) []string {
		run(t, ctx, chromedp.Navigate(s.URL+"/workflows/"+stem+"/history"), chromedp.WaitReady("body"))
		return versionRows(t, ctx)
	}
	for deadline := time.Now().Add(10 * time.Second); len(rowsAt("other")) == 0 || len(rowsAt("haunted")) == 0 ||
		!strings.HasPrefix(strings.Join(rowsAt("opinion-survey"), "\n"), " | filesystem | deleted"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			break // the rows below say what is missing
		}
	}
	want := []string{" | filesystem | deleted | false", registry.Hash([]byte(survey)) + " | filesystem | created (" + strconv.Itoa(strings.Count(survey, "\n")) + " lines) | false"}
	if rows := rowsAt("opinion-survey"); strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("/workflows/opinion-survey/history lists\n%s\nwant the deleted survey's\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	if resp, err := http.Get(s.URL + "/workflows/ghost/history"); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusNotFound {
		t.Errorf("/workflows/ghost/history (no file ever; haunted.yaml's workflow is named ghost) = %d, want 404", resp.StatusCode)
	}

	run(t, ctx, chromedp.Navigate(s.URL+"/workflows/opinion-survey/history"), chromedp.WaitVisible(tid("versions")))
	run(t, ctx, chromedp.Click(`[data-testid="restore-form"][data-hash="`+registry.Hash([]byte(survey))+`"] button`))
	waitText(t, ctx, "restored-notice", "Restored version "+registry.Hash([]byte(survey))[:12])
	if got := s.read(t); got != survey {
		t.Fatalf("after the restore opinion-survey.yaml is\n%q\nwant\n%q", got, survey)
	}
	webtest.Follow(t, ctx, tid("history-edit"), "workflow-yaml")
	if got := evalText(t, ctx, `document.querySelector('[data-testid="workflow-yaml"]').value`); got != survey {
		t.Errorf("Edit opened\n%q\nwant the restored file", got)
	}
}
