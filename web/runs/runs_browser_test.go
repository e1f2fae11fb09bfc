package runs_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/demo"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"

	"github.com/agentry/agentry/web"

	"github.com/agentry/agentry/web/core"
	"github.com/agentry/agentry/web/internal/webtest"
)

// crew is a coordinator that may delegate to two workers in parallel.
var crew = map[string]string{
	"coord.md": "---\nname: coord\ndescription: Splits the work and sums it up.\nsubagents:\n  allow: [alpha, beta]\n  execution: parallel\n---\nYou coordinate.\n",
	"alpha.md": "---\nname: alpha\ndescription: Looks at the numbers.\n---\nYou analyse numbers.\n",
	"beta.md":  "---\nname: beta\ndescription: Finds sources.\n---\nYou find sources.\n",
	// solo runs one child at a time, so its second delegation queues.
	"solo.md": "---\nname: solo\ndescription: One worker at a time.\nsubagents:\n  allow: [alpha, beta]\n  execution: parallel\n  max_concurrent: 1\n---\nYou coordinate.\n",
}

// slowScript makes both workers take 30 s, so a test can cancel the run
// while both branches are going.
const slowScript = `coord:
  - calls:
      - {tool: delegate, args: {agent: alpha, task: "slow part A"}}
      - {tool: delegate, args: {agent: beta, task: "slow part B"}}
  - say: "both done"
solo:
  - calls:
      - {tool: delegate, args: {agent: alpha, task: "slow part A"}}
      - {tool: delegate, args: {agent: beta, task: "slow part B"}}
  - say: "both done"
alpha:
  - {latency: 30s, say: "A"}
beta:
  - {latency: 30s, say: "B"}
`

// runsBrowser is a browser-test server with a real runtime (demo and script
// models) recording into a memory store through a Recorder.
type runsBrowser struct {
	*browserServer
	store *memory.Store
}

func startRunsBrowser(t *testing.T) *runsBrowser {
	t.Helper()
	store := memory.New()
	rec := trace.NewRecorder(store, trace.RecorderConfig{})
	var rt *delegation.Runtime
	scripts := t.TempDir()
	if err := os.WriteFile(filepath.Join(scripts, "slow.yaml"), []byte(slowScript), 0o644); err != nil {
		t.Fatal(err)
	}
	bs := startBrowserServer(t, crew, func(c *web.Config) {
		c.Runs, c.DefaultModel, c.ScriptDir = store, "demo", scripts
		c.Runtime = core.RunnerFunc(func(ctx context.Context, r core.RunRequest) (core.Execution, error) {
			ex, err := rt.Start(ctx, delegation.Request{Agent: r.Agent, Task: r.Task, Model: r.Model})
			if err != nil {
				return nil, err
			}
			return ex, rec.Flush(ctx) // Runner's contract: recorded when Start returns
		})
	})
	var err error
	rt, err = delegation.New(delegation.Config{
		Agents: bs.Agents, DefaultModel: "demo", Sink: rec,
		Models: model.Providers{
			// A slower demo than the default, so a loaded machine still
			// sees the run while it goes.
			"demo":   func(string) (model.LLM, error) { return &demo.Model{Latency: 700 * time.Millisecond}, nil },
			"script": func(name string) (model.LLM, error) { return script.LoadIn(scripts, name) },
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rec.Close(context.Background()) })
	waitAgents(t, bs, len(crew))
	return &runsBrowser{browserServer: bs, store: store}
}

// waitAgents waits until the watched folder has loaded n agents.
func waitAgents(t *testing.T, bs *browserServer, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(bs.Agents.Snapshot().Agents()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the registry loaded %d agents, want %d", len(bs.Agents.Snapshot().Agents()), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startFromForm starts a run through the start form and waits for its timeline.
func startFromForm(t *testing.T, ctx context.Context, base, agent, task, model string) {
	t.Helper()
	run(t, ctx,
		chromedp.Navigate(base+"/runs/new"),
		chromedp.WaitVisible(tid("new-run-form")),
		chromedp.SetValue(tid("run-agent"), agent),
		chromedp.SendKeys(tid("run-task-input"), task),
		chromedp.SetValue(tid("run-model"), model),
		chromedp.Click(tid("start-run")),
	)
	waitJS(t, ctx, `!!document.querySelector('#tl-page[data-ready="true"]')`, "the timeline page")
}

func evalJS[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

func TestBrowserStartsADemoRunAndWatchesItLive(t *testing.T) {
	b := startRunsBrowser(t)
	ctx := newBrowser(t)
	startFromForm(t, ctx, b.URL, "coord", "Compare Q4 sales with the sources", "demo")
	// Mark the page: if the timeline grows by reloading, the mark is lost.
	evalJS[bool](t, ctx, `window.__samePage = true`)
	if got := evalJS[string](t, ctx, `document.querySelector('[data-testid=run-status]').textContent`); got != "running" {
		t.Fatalf("a fresh demo run shows %q, want running", got)
	}
	first := evalJS[int](t, ctx, `document.querySelectorAll('[data-testid=span-row]').length`)
	waitJS(t, ctx, fmt.Sprintf(`document.querySelectorAll('[data-testid=span-row]').length > %d && document.querySelector('[data-testid=run-status]').textContent === "running"`, first),
		"new spans while the run is still going")
	waitText(t, ctx, "run-status", "ok")
	rows := evalJS[int](t, ctx, `document.querySelectorAll('[data-testid=span-row]').length`)
	if !evalJS[bool](t, ctx, `window.__samePage === true`) {
		t.Fatal("the page reloaded instead of growing live")
	}
	if rows <= first {
		t.Fatalf("rows went from %d to %d; spans did not appear live", first, rows)
	}
	agents := evalJS[[]string](t, ctx, `[...document.querySelectorAll('.k-invoke_agent .tl-name')].map(e => e.textContent)`)
	if strings.Join(agents, ",") != "coord,alpha,beta" && strings.Join(agents, ",") != "coord,beta,alpha" {
		t.Errorf("agent rows = %v, want coord and both workers", agents)
	}
	if evalJS[bool](t, ctx, `!!document.querySelector('[data-testid=cancel-run]')`) {
		t.Error("Cancel is still offered after the run ended")
	}
	// Open a worker's details: task and context mode as the child got them.
	run(t, ctx, chromedp.Click(chromedp.CSS(`.k-invoke_agent[data-level="2"] .tl-name`)))
	waitJS(t, ctx, `!!document.querySelector('[data-testid=detail-task]')`, "the span details")
	task := evalJS[string](t, ctx, `document.querySelector('[data-testid=detail-task]').textContent`)
	if task == "" {
		t.Error("the details show no task")
	}
	bars := evalJS[int](t, ctx, `[...document.querySelectorAll('.tl-bar')].filter(b => b.getBoundingClientRect().width > 0).length`)
	if bars != rows {
		t.Errorf("%d of %d bars are drawn", bars, rows)
	}
	screenshot(t, ctx, "timeline-demo-run")
	// The list shows the run with its numbers.
	run(t, ctx, chromedp.Navigate(b.URL+"/runs"), chromedp.WaitVisible(tid("runs-table")))
	waitText(t, ctx, "run-row", "coord")
	screenshot(t, ctx, "runs-list")
}

func TestBrowserCancelMarksEveryBranchCancelled(t *testing.T) {
	b := startRunsBrowser(t)
	ctx := newBrowser(t)
	startFromForm(t, ctx, b.URL, "coord", "Do two slow things", "script:slow.yaml")
	waitJS(t, ctx, `document.querySelectorAll('.k-invoke_agent.st-running').length === 3`, "both branches running")
	screenshot(t, ctx, "timeline-before-cancel")
	// A person double-clicks: the second click must not post again and
	// answer the first one's success with "already ended".
	evalJS[bool](t, ctx, `(() => { const b = document.querySelector('[data-testid=cancel-run]'); b.click(); b.click(); return true; })()`)
	waitText(t, ctx, "run-status", "cancelled")
	waitJS(t, ctx, `document.querySelectorAll('[data-testid=span-row][data-status=running]').length === 0`, "no span left running")
	statuses := evalJS[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll('.k-invoke_agent')].map(r => [r.querySelector('.tl-name').textContent, r.dataset.status]))`)
	for _, agent := range []string{"coord", "alpha", "beta"} {
		if statuses[agent] != "cancelled" {
			t.Errorf("%s ended %q, want cancelled (all: %v)", agent, statuses[agent], statuses)
		}
	}
	badges := evalJS[int](t, ctx, `[...document.querySelectorAll('.tl-badge.st-cancelled')].filter(b => b.offsetParent).length`)
	if badges < 3 {
		t.Errorf("%d cancelled badges visible, want one per branch at least", badges)
	}
	if flash := evalJS[string](t, ctx, `(() => { const f = document.getElementById('flash'); return f.hidden ? "" : f.textContent; })()`); flash != "" {
		t.Errorf("after a double-click on Cancel the page says %q", flash)
	}
	screenshot(t, ctx, "timeline-cancelled")
}

// TestBrowserShowsAQueuedDelegationAndTimeSoFar starts a run whose second
// delegation must wait for a slot: its row says queued, not running, and
// the rollup shows the time so far rather than 0 ms.
func TestBrowserShowsAQueuedDelegationAndTimeSoFar(t *testing.T) {
	b := startRunsBrowser(t)
	ctx := newBrowser(t)
	startFromForm(t, ctx, b.URL, "solo", "Do two slow things, one at a time", "script:slow.yaml")
	waitJS(t, ctx, `!!document.querySelector('[data-testid=span-row][data-status=queued]')`, "a queued delegation")
	waitJS(t, ctx, `[...document.querySelectorAll('[data-testid=rollup-time]')].some(td => td.textContent !== "0 ms")`, "the time so far in the rollup")
	if n := evalJS[int](t, ctx, `document.querySelectorAll('.k-execute_tool.st-running').length`); n != 1 {
		t.Errorf("%d delegations show running, want 1 (the other is queued)", n)
	}
	viewportShot(t, ctx, "timeline-queued")
	run(t, ctx, chromedp.Click(tid("cancel-run")))
	waitText(t, ctx, "run-status", "cancelled")
}

func TestBrowserOpensA10000SpanRun(t *testing.T) {
	b := startRunsBrowser(t)
	run10k, spans := bigRun(10_000)
	if err := b.store.Apply(context.Background(), []trace.Run{run10k}, spans); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(b.URL+"/runs/"+run10k.ID))
	waitJS(t, ctx, `!!document.querySelector('#tl-page[data-ready="true"]')`, "the 10,000-span timeline")
	// Navigation start to the script having placed every bar.
	ready := evalJS[float64](t, ctx, `performance.getEntriesByName("timeline-ready")[0].startTime`)
	t.Logf("10,000-span run ready %.0f ms after navigation started", ready)
	t.Logf("timing: %s", evalJS[string](t, ctx, `JSON.stringify((({responseStart, responseEnd, domInteractive, domContentLoadedEventEnd, loadEventEnd}) => ({responseStart, responseEnd, domInteractive, domContentLoadedEventEnd, loadEventEnd}))(performance.getEntriesByType("navigation")[0]))`))
	if got := evalJS[string](t, ctx, `document.querySelector('.tl-axis-label').textContent`); !strings.HasPrefix(got, "10000 spans") {
		t.Errorf("axis says %q, want all 10000 spans counted", got)
	}
	shown := evalJS[int](t, ctx, `document.querySelectorAll('.tl-node').length`)
	t.Logf("%d rows in the page at first", shown)
	if shown > 100 {
		t.Errorf("%d rows in the page, want one window of at most 100", shown)
	}
	// 2,500 delegations to 20 workers read as 20 group rows; the name stays
	// in the label column and the counts over the bar are not cut.
	if got := evalJS[int](t, ctx, `document.querySelectorAll('[data-testid=group-row]').length`); got != 20 {
		t.Errorf("%d group rows, want 20", got)
	}
	cut := evalJS[[]string](t, ctx, `[...document.querySelectorAll('[data-testid=group-row]')].flatMap(g => {
		const name = g.querySelector('.tl-name'), text = g.querySelector('.tl-gtext'), wf = document.querySelector('.tl-waterfall').getBoundingClientRect();
		const out = [];
		if (name.scrollWidth > name.clientWidth + 1) out.push("name " + name.textContent);
		if (text.getBoundingClientRect().right > wf.right) out.push("text " + text.textContent);
		return out; })`)
	if len(cut) > 0 {
		t.Errorf("cut in group rows: %v", cut)
	}
	// Next error opens the group that hides the first failure.
	run(t, ctx, chromedp.Click(tid("next-error")))
	waitJS(t, ctx, `!!document.querySelector('[data-testid=detail-status]')`, "the first error's details")
	if got := evalJS[string](t, ctx, `document.querySelector('[data-testid=detail-status]').textContent`); got != "error" {
		t.Errorf("next error opened a span with status %q", got)
	}
	visible := evalJS[bool](t, ctx, `(() => { const r = document.querySelector('.tl-row.selected').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()`)
	if !visible {
		t.Error("next error did not scroll its span into view")
	}
	viewportShot(t, ctx, "timeline-10k")
	// Expand all: every row, one window at a time as the waterfall scrolls.
	run(t, ctx, chromedp.Click(tid("expand-all")))
	waitJS(t, ctx, `document.querySelector('[data-testid=rows-window]').dataset.total === "10020"`, "the fully expanded run")
	evalJS[bool](t, ctx, `(() => { const s = document.querySelector('.tl-scroll'); s.scrollTop = s.scrollHeight; return true; })()`)
	waitJS(t, ctx, `(() => { const rows = document.querySelectorAll('.tl-node'); const n = rows[rows.length - 1];
		const w = document.querySelector('[data-testid=rows-window]');
		return +w.dataset.from + rows.length === 10020 && n.getBoundingClientRect().bottom <= document.querySelector('.tl-scroll').getBoundingClientRect().bottom + 1; })()`,
		"the last row on screen after scrolling to the end")
	if n := evalJS[int](t, ctx, `document.querySelectorAll('.tl-node').length`); n > 100 {
		t.Errorf("after scrolling through the whole run the page holds %d rows", n)
	}
	// Find: the store answers, the window shows what matched.
	run(t, ctx, chromedp.SetValue(tid("find-status"), "error"), chromedp.Click(tid("find-submit")))
	waitText(t, ctx, "found-count", "spans found")
	if got := evalJS[string](t, ctx, `document.querySelector('[data-testid=found-count]').textContent`); got != "357 spans found" {
		t.Errorf("find status=error says %q", got)
	}
	if bad := evalJS[int](t, ctx, `document.querySelectorAll('[data-testid=span-row]:not([data-status=error])').length`); bad != 0 {
		t.Errorf("%d rows found that are not errors", bad)
	}
}

// viewportShot saves what the window shows, for pages too long for a
// full-page screenshot to be readable.
func viewportShot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(webtest.ArtifactsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(webtest.ArtifactsDir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBrowserShowsWhyCancelFailed(t *testing.T) {
	b := startRunsBrowser(t)
	now := time.Now()
	gone := trace.Run{ID: "gone", Agent: "coord", Task: "left behind", Status: trace.StatusInterrupted, StartedAt: now.Add(-time.Minute), EndedAt: now}
	if err := b.store.Apply(context.Background(), []trace.Run{gone}, nil); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(b.URL+"/runs/gone"), chromedp.WaitVisible(tid("run-status")))
	// The button is not offered for this run; a stale page or a second tab
	// still posts, as this htmx call does.
	evalJS[bool](t, ctx, `htmx.ajax("POST", "/runs/gone/cancel", {swap: "none"}), true`)
	waitText(t, ctx, "flash", "interrupted")
	screenshot(t, ctx, "cancel-refused")
}

func TestBrowserStartFormOffersTheConfiguredModels(t *testing.T) {
	b := startRunsBrowser(t)
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(b.URL+"/runs/new"), chromedp.WaitVisible(tid("run-model")))
	models := evalJS[[]string](t, ctx, `[...document.querySelectorAll('[data-testid=run-model] option')].map(o => o.value)`)
	if strings.Join(models, ",") != ",demo,script:slow.yaml" {
		t.Errorf("model options %q, want each agent's own, demo and the scripts folder's slow.yaml", models)
	}
	if got := evalJS[string](t, ctx, `document.querySelector('[data-testid=run-model]').value`); got != "" {
		t.Errorf("preselected model %q, want each agent's own model (\"\")", got)
	}
	screenshot(t, ctx, "start-form")
}
