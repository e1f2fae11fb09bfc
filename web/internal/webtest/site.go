package webtest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/eval"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/demo"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"

	"github.com/agentry/agentry/web"
	"github.com/agentry/agentry/web/core"
)

// Site is a whole UI as serve builds it, over temporary folders: agents
// and workflows watched, runs recorded in memory through a Recorder, and a
// real runtime playing the demo model and script:NAME models from Scripts.
type Site struct {
	*BrowserServer
	Workflows string // the workflows folder
	Scripts   string // the folder script:NAME models are read from
	Store     *memory.Store
	Catalog   *workflow.Catalog
	Runtime   *delegation.Runtime
	Recorder  *trace.Recorder
	// Evals is the evals folder of a versioned site (StartVersionedSite).
	Evals string
}

// StartSite serves agents and the content-pipeline workflow shipped in the
// repository (with its script), plus extra workflow files. As in serve,
// asks wait in the store (Approvals), which the pages and the API answer;
// mod adjusts the Config after the site's own settings (the skills pages
// set theirs).
func StartSite(t *testing.T, agents map[string]string, extraWorkflows map[string]string, mod ...func(*web.Config)) *Site {
	t.Helper()
	return startSite(t, agents, extraWorkflows, false, mod...)
}

// StartVersionedSite is StartSite as serve runs it for issue 28: every
// change to an agent file is a version in the site's store (its current
// files recorded at start, as serve does), the History and Evals pages
// read that store, and the evals folder Evals is watched; mod adjusts the
// Config as StartSite's does.
func StartVersionedSite(t *testing.T, agents map[string]string, mod ...func(*web.Config)) *Site {
	t.Helper()
	return startSite(t, agents, nil, true, mod...)
}

func startSite(t *testing.T, agents map[string]string, extraWorkflows map[string]string, versioned bool, mod ...func(*web.Config)) *Site {
	t.Helper()
	root := moduleRoot(t)
	site := &Site{Workflows: t.TempDir(), Scripts: t.TempDir(), Store: memory.New()}
	copyInto(t, filepath.Join(root, "workflows/content-pipeline.yaml"), filepath.Join(site.Workflows, "content-pipeline.yaml"))
	copyInto(t, filepath.Join(root, "workflows/scripts/content-pipeline.script.yaml"), filepath.Join(site.Scripts, "content-pipeline.script.yaml"))
	for name, text := range extraWorkflows {
		if err := os.WriteFile(filepath.Join(site.Workflows, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	site.Catalog = workflow.NewCatalog(nil)
	files, err := folder.OpenContents(site.Workflows, site.Catalog, folder.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { files.Close() })
	site.Recorder = trace.NewRecorder(site.Store, trace.RecorderConfig{})
	var versions trace.VersionStore
	if versioned {
		versions = site.Store
		site.Evals = t.TempDir()
	}
	bs := startBrowserServer(t, agents, versions, func(c *web.Config) {
		if versioned {
			site.versioned(t, c)
		}
		c.Runs, c.ScriptDir, c.DefaultModel, c.Approvals = site.Store, site.Scripts, "demo", site.Store
		c.Workflows, c.WorkflowFiles = site.Catalog, files
		c.Runtime = core.RunnerFunc(func(ctx context.Context, r core.RunRequest) (core.Execution, error) {
			ex, err := site.Runtime.Start(ctx, delegation.Request{Agent: r.Agent, Inline: r.Inline, Task: r.Task, Model: r.Model,
				Tools: r.Tools, Attributes: r.Caller.Attributes()})
			if err != nil {
				return nil, err
			}
			// Runner's contract: recorded when Start returns; and, as in
			// serve, its end is in the store when Done closes.
			return flushedOnDone(ex, site.Recorder), site.Recorder.Flush(ctx)
		})
		c.WorkflowRuntime = workflowRunner(func(ctx context.Context, r core.WorkflowRunRequest) (core.Execution, error) {
			// As serve's: the exposure's level and the caller go with the run.
			ex := workflow.Start(ctx, site.Runtime, r.Workflow, r.Model, workflow.Options{Inputs: r.Inputs, Tools: r.Tools,
				Attributes: r.Caller.Attributes()})
			return ex, site.Recorder.Flush(ctx)
		})
		for _, m := range mod {
			m(c)
		}
	})
	site.BrowserServer = bs
	site.Runtime, err = delegation.New(delegation.Config{
		Agents: bs.Agents, DefaultModel: "demo", Sink: site.Recorder, Approvals: site.Store,
		Models: model.Providers{
			"demo":   func(string) (model.LLM, error) { return &demo.Model{Latency: 50 * time.Millisecond}, nil },
			"script": func(name string) (model.LLM, error) { return script.LoadIn(site.Scripts, name) },
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Recorder.Close(context.Background()) })
	return site
}

type workflowRunner func(context.Context, core.WorkflowRunRequest) (core.Execution, error)

func (f workflowRunner) Start(ctx context.Context, r core.WorkflowRunRequest) (core.Execution, error) {
	return f(ctx, r)
}

func copyInto(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// flushedOnDone is ex whose Done closes once rec has written the run's
// end, as serve's runner does: whoever waits on Done (an MCP call, the
// API, A2A) reads the end from the store.
func flushedOnDone(ex *delegation.Execution, rec *trace.Recorder) core.Execution {
	f := flushed{Execution: ex, done: make(chan struct{})}
	go func() {
		<-ex.Done()
		_ = rec.Flush(context.Background())
		close(f.done)
	}()
	return f
}

type flushed struct {
	*delegation.Execution
	done chan struct{}
}

func (f flushed) Done() <-chan struct{} { return f.done }

// versioned gives the UI the store's evals and a watched evals folder
// (startBrowserServer gives it the versions).
func (site *Site) versioned(t *testing.T, c *web.Config) {
	t.Helper()
	cat := eval.NewCatalog()
	f, err := folder.OpenContents(site.Evals, cat, folder.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	c.Evals, c.EvalSuites, c.EvalFiles = site.Store, cat, folder.Sourced(f, registry.SourceWeb)
}

// ShippedAgents reads the repository's agents/NAME.md files, for a test
// of the shipped team (research-coordinator and its specialists).
func ShippedAgents(t *testing.T, names ...string) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(moduleRoot(t), "agents", name+".md"))
		if err != nil {
			t.Fatal(err)
		}
		files[name+".md"] = string(data)
	}
	return files
}

// ResearchTeam is the shipped research-coordinator and its specialists.
func ResearchTeam(t *testing.T) map[string]string {
	t.Helper()
	return ShippedAgents(t, "research-coordinator", "data-analyst", "web-researcher", "citation-checker")
}
