package workflows_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/trace"

	"github.com/agentry/agentry/web/internal/webtest"
)

// wfBrowser is a real server over a watched workflows folder holding the
// shipped content-pipeline workflow, with a real runtime that plays its
// script model, driven by headless Chromium.
type wfBrowser struct{ *webtest.Site }

func startWFBrowser(t *testing.T, extra map[string]string) *wfBrowser {
	t.Helper()
	return &wfBrowser{webtest.StartSite(t, nil, extra)}
}

func (b *wfBrowser) write(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(b.Workflows, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (b *wfBrowser) read(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(b.Workflows, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestBrowserTheListShowsABrokenFileAndFollowsTheFolder(t *testing.T) {
	b := startWFBrowser(t, map[string]string{"broken.yaml": broken})
	ctx := webtest.NewBrowser(t)
	run(t, ctx, chromedp.Navigate(b.URL+"/workflows"), chromedp.WaitVisible(tid("workflow-row-content-pipeline")))
	waitText(t, ctx, "workflow-row-broken", "broken.yaml:6: ")
	screenshot(t, ctx, "workflows-list")

	// Another program adds a workflow, then breaks it: the list follows
	// without a reload, keeping the last good version.
	b.write(t, "survey.yaml", survey)
	waitText(t, ctx, "workflow-row-survey", "Asks about a topic")
	b.write(t, "survey.yaml", strings.Replace(survey, "{{inputs.topic}}", "{{inputs.topik}}", 1))
	waitText(t, ctx, "workflow-row-survey", "survey.yaml:14: ")
	waitText(t, ctx, "workflow-row-survey", "serving the last good version")
	b.write(t, "broken.yaml", strings.Replace(broken, "inputs.nobody", "'fixed'", 1))
	waitJS(t, ctx, `!document.querySelector('[data-testid="workflow-row-broken"] [data-testid="workflow-problem"]')`, "the fixed file's problem to go")
	screenshot(t, ctx, "workflows-list-live")
}

func TestBrowserEditAndSaveAWorkflow(t *testing.T) {
	b := startWFBrowser(t, nil)
	ctx := webtest.NewBrowser(t)
	run(t, ctx, chromedp.Navigate(b.URL+"/workflows/content-pipeline"), chromedp.WaitVisible(tid("workflow-graph")))
	waitText(t, ctx, "workflow-graph", "--> [3. Publisher]")
	screenshot(t, ctx, "workflow-page")

	webtest.Follow(t, ctx, tid("edit-workflow"), "workflow-yaml")
	text := b.read(t, "content-pipeline.yaml")
	replaceInEditor(t, ctx, "{{inputs.audience}}.", "{{inputs.readers}}.")
	run(t, ctx, chromedp.Click(tid("save")))
	waitText(t, ctx, "not-saved", "Not saved: 1 problem Line 25: step research: undefined variable inputs.readers")
	waitJS(t, ctx, `JSON.parse(document.querySelector('[data-testid="workflow-yaml"]').dataset.problems)[0].line === 25`, "data-problems to mark line 25")
	screenshot(t, ctx, "workflow-editor-error")
	if b.read(t, "content-pipeline.yaml") != text {
		t.Fatal("a workflow with an error was saved")
	}

	edited := strings.Replace(text, "prepare it for publishing", "prepare it for the blog", 1)
	replaceInEditor(t, ctx, "{{inputs.readers}}.", "{{inputs.audience}}.")
	replaceInEditor(t, ctx, "prepare it for publishing", "prepare it for the blog")
	run(t, ctx, chromedp.Click(tid("save")))
	waitText(t, ctx, "saved", "content-pipeline.yaml")
	if got := b.read(t, "content-pipeline.yaml"); got != edited {
		t.Fatalf("on disk after the save:\n%s", got)
	}
	run(t, ctx, chromedp.Navigate(b.URL+"/workflows"))
	waitText(t, ctx, "workflow-row-content-pipeline", "prepare it for the blog")
}

func TestBrowserAConflictingSaveIsRefusedWithBothVersions(t *testing.T) {
	b := startWFBrowser(t, nil)
	ctx := webtest.NewBrowser(t)
	run(t, ctx, chromedp.Navigate(b.URL+"/workflows/content-pipeline/edit"), chromedp.WaitReady(tid("workflow-yaml")))
	text := b.read(t, "content-pipeline.yaml")
	theirs := strings.Replace(text, "version: \"1.0.0\"", "version: \"1.1.0\"", 1)
	b.write(t, "content-pipeline.yaml", theirs)
	mine := strings.Replace(text, "prepare it for publishing", "prepare it for print", 1)
	replaceInEditor(t, ctx, "prepare it for publishing", "prepare it for print")
	run(t, ctx, chromedp.Click(tid("save")))
	waitText(t, ctx, "conflict", "changed on disk")
	waitText(t, ctx, "conflict-disk", `version: "1.1.0"`)
	waitText(t, ctx, "conflict-yours", "prepare it for print")
	screenshot(t, ctx, "workflow-editor-conflict")
	if b.read(t, "content-pipeline.yaml") != theirs {
		t.Fatal("the refused save changed the file")
	}
	run(t, ctx, chromedp.Click(tid("save")))
	waitText(t, ctx, "saved", "content-pipeline.yaml")
	if b.read(t, "content-pipeline.yaml") != mine {
		t.Fatal("saving again after the conflict did not overwrite")
	}
}

func TestBrowserTheStartFormRunsContentPipelineOnItsScriptAndOpensTheTimeline(t *testing.T) {
	b := startWFBrowser(t, nil)
	ctx := webtest.NewBrowser(t)
	run(t, ctx, chromedp.Navigate(b.URL+"/workflows/content-pipeline"), chromedp.WaitVisible(tid("run-workflow")))
	webtest.Follow(t, ctx, tid("run-workflow"), "workflow-run-form")
	// A required input left empty is refused by the server (the browser's
	// own check is switched off to reach it).
	run(t, ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="workflow-run-form"]').noValidate = true`),
		chromedp.SetValue(tid("run-model"), "script:content-pipeline.script.yaml"), chromedp.Click(tid("start-run")))
	waitText(t, ctx, "run-problem", "topic")
	run(t, ctx,
		chromedp.SendKeys(tid("input-field-topic"), "heat pumps for homeowners"),
		chromedp.SetValue(tid("run-model"), "script:content-pipeline.script.yaml"),
	)
	screenshot(t, ctx, "workflow-start-form")
	run(t, ctx, chromedp.Click(tid("start-run")))
	waitJS(t, ctx, `!!document.querySelector('#tl-page[data-ready="true"]')`, "the run's timeline")
	deadline := time.Now().Add(15 * time.Second)
	for {
		page, _ := b.Store.Runs(context.Background(), trace.RunFilter{Limit: 5})
		if len(page.Runs) == 1 && page.Runs[0].Status == trace.StatusOK {
			if !strings.Contains(page.Runs[0].Result, "Heat pumps, explained") || page.Runs[0].Agent != "content-pipeline" {
				t.Fatalf("run = %+v", page.Runs[0])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the workflow run did not end ok: %+v", page.Runs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	waitText(t, ctx, "run-status", "ok")
	waitText(t, ctx, "waterfall", "publish")
	// The workflow and its steps are labelled as such, and only agents are
	// summed up as agents.
	waitJS(t, ctx, `[...document.querySelectorAll('.tl-kind')].filter(k => k.textContent === 'step').length === 3 &&
		[...document.querySelectorAll('.tl-kind')].some(k => k.textContent === 'workflow')`, "the workflow and step labels")
	waitJS(t, ctx, `[...document.querySelectorAll('[data-testid="rollup-row"]')].map(r => r.cells[0].textContent.trim()).join(',') === 'researcher,writer,editor,publisher'`,
		"the agents table to list the four agents only")
	// Its inputs read as name: value, and its row's label does not run
	// into its name (WORKFLOWcontent-pipeline).
	waitText(t, ctx, "run-inputs", "topic")
	if got := evalText(t, ctx, `[...document.querySelectorAll('[data-testid=run-inputs] div')].map(d => d.innerText.replace(/\s+/g, " ")).join(" | ")`); got != "audience: general readers | topic: heat pumps for homeowners" {
		t.Errorf("the run's inputs read %q", got)
	}
	if n := evalText(t, ctx, `String(document.querySelectorAll('[data-testid=reply-box]').length)`); n != "0" {
		t.Error("a workflow run offers a reply box: it has no agent to reply to")
	}
	kind := webtest.BoxOf(t, ctx, `.k-invoke_workflow .tl-kind`)
	name := webtest.BoxOf(t, ctx, `.k-invoke_workflow .tl-name`)
	if kind.Right() > name.X {
		t.Errorf("the workflow row's label %+v runs into its name %+v", kind, name)
	}
	screenshot(t, ctx, "workflow-run-timeline")
	run(t, ctx, chromedp.Navigate(b.URL+"/runs"))
	waitText(t, ctx, "run-workflow-tag", "workflow")
	waitText(t, ctx, "run-inputs", "topic: heat pumps for homeowners")
	screenshot(t, ctx, "runs-list-workflow")
}

func evalText(t *testing.T, ctx context.Context, expr string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The step graph sits in the middle of its box, at any width.
func TestBrowserTheStepGraphIsCentredInItsBox(t *testing.T) {
	b := startWFBrowser(t, nil)
	ctx := webtest.NewBrowser(t)
	for _, width := range []int64{1400, 800} {
		webtest.Viewport(t, ctx, width, 1000)
		run(t, ctx, chromedp.Navigate(b.URL+"/workflows/content-pipeline"), chromedp.WaitVisible(tid("workflow-diagram")))
		box := webtest.BoxOf(t, ctx, `[data-testid=workflow-diagram]`)
		svg := webtest.BoxOf(t, ctx, `[data-testid=workflow-diagram] svg`)
		if d := (svg.X + svg.W/2) - (box.X + box.W/2); d > 4 || d < -4 {
			t.Errorf("at %dpx the graph's centre is %.0fpx from its box's", width, d)
		}
		if svg.Right() > box.Right() {
			t.Errorf("at %dpx the graph %+v leaves its box %+v", width, svg, box)
		}
		screenshot(t, ctx, "workflow-page-"+map[int64]string{1400: "wide", 800: "narrow"}[width])
	}
}

// replaceInEditor selects the first occurrence of old in the YAML code
// editor, as a person would with the mouse, and types replacement over it.
func replaceInEditor(t *testing.T, ctx context.Context, old, replacement string) {
	t.Helper()
	waitJS(t, ctx, `!!document.querySelector('[data-testid="editor-workflow-yaml"]')?.editorView`, "the code editor")
	sel := fmt.Sprintf(`(() => { const v = document.querySelector('[data-testid="editor-workflow-yaml"]').editorView;
		const at = v.state.doc.toString().indexOf(%q); if (at < 0) return false;
		v.focus(); v.dispatch({selection: {anchor: at, head: at + %d}}); return true; })()`, old, len(old))
	found, err := chromedp.Run(ctx, chromedp.Evaluate[bool](sel))
	if err != nil || !found {
		t.Fatalf("select %q in the editor: found %v, %v", old, found, err)
	}
	run(t, ctx, chromedp.KeyEvent(replacement))
}
