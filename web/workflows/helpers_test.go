package workflows_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry/folder"
	"github.com/agentry/agentry/trace/memory"

	"github.com/agentry/agentry/web"
	"github.com/agentry/agentry/web/core"
	"github.com/agentry/agentry/web/internal/dom"
	"github.com/agentry/agentry/web/internal/webtest"
)

var (
	find       = dom.Find
	findAll    = dom.FindAll
	attr       = dom.Attr
	hasAttr    = dom.HasAttr
	textOf     = dom.TextOf
	csrfOf     = dom.CSRFOf
	formValues = dom.FormValues
	tid        = webtest.TID
	run        = webtest.Run
	waitText   = webtest.WaitText
	waitJS     = webtest.WaitJS
	screenshot = webtest.Screenshot
)

// survey declares one input of each type, with and without defaults.
const survey = `workflow:
  name: survey
  description: Asks about a topic
inputs:
  - {name: topic, type: string, required: true, description: What to ask about}
  - {name: depth, type: number, default: 2}
  - {name: strict, type: boolean, required: false}
  - {name: extra, type: json, required: false}
  - {name: notes, type: file_path, required: false}
agents:
  asker:
    name: Asker
    role: Asks questions
    prompt: "Ask about {{inputs.topic}} at depth {{inputs.depth}}"
steps:
  - id: ask
    agent: asker
  - id: sum
    agent: asker
    input: "{{steps.ask.output}}"
`

// broken names an input nobody declared, at line 6.
const broken = `workflow:
  name: broken
agents:
  a:
    name: A
    prompt: "{{inputs.nobody}}"
steps:
  - {id: s, agent: a}
`

// wfEnv is a server over a real, watched workflows folder.
type wfEnv struct {
	*webtest.Env
	dir    string
	cat    *workflow.Catalog
	runner *fakeRunner
}

func newWFEnv(t *testing.T, files map[string]string) *wfEnv {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cat := workflow.NewCatalog(nil)
	f, err := folder.OpenContents(dir, cat, folder.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	r := &fakeRunner{}
	env := webtest.NewEnv(t, webtest.Team, func(c *web.Config) {
		c.Workflows, c.WorkflowFiles, c.WorkflowRuntime, c.Runs = cat, f, r, memory.New()
	})
	return &wfEnv{Env: env, dir: dir, cat: cat, runner: r}
}

func (e *wfEnv) read(name string) string {
	e.T.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, name))
	if err != nil {
		e.T.Fatal(err)
	}
	return string(b)
}

// fakeRunner records the workflow runs asked for.
type fakeRunner struct {
	mu   sync.Mutex
	reqs []core.WorkflowRunRequest
}

func (r *fakeRunner) Start(_ context.Context, req core.WorkflowRunRequest) (core.Execution, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	done := make(chan struct{})
	close(done)
	return fakeExecution{done}, nil
}

type fakeExecution struct{ done chan struct{} }

func (fakeExecution) RunID() string           { return "run-1" }
func (e fakeExecution) Done() <-chan struct{} { return e.done }
func (fakeExecution) Cancel()                 {}
