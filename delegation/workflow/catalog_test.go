package workflow

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentry/agentry/registry"
)

const goodFlow = "workflow: {name: greet}\nagents:\n  hi: {prompt: \"Say hi to {{inputs.who}}\"}\ninputs:\n  - {name: who, type: string, required: true}\nsteps:\n  - {id: a, agent: hi}\n"

// brokenFlow names an input nobody declared, at line 3.
const brokenFlow = "workflow: {name: greet}\nagents:\n  hi: {prompt: \"Say hi to {{inputs.nobody}}\"}\nsteps:\n  - {id: a, agent: hi}\n"

func TestCatalogKeepsTheLastGoodVersionOfABrokenFile(t *testing.T) {
	c := NewCatalog(nil)
	if err := c.Load(fstest.MapFS{"greet.yaml": {Data: []byte(goodFlow)}, "scripts/x.yaml": {Data: []byte("x: 1")}, ".hidden.yaml": {Data: []byte("x")}}); err != nil {
		t.Fatal(err)
	}
	if got := c.Paths(); len(got) != 1 || got[0] != "greet.yaml" {
		t.Fatalf("paths = %v, want only greet.yaml (no subfolders, no hidden files)", got)
	}
	c.Apply([]registry.Change{{Path: "greet.yaml", Data: []byte(brokenFlow)}})
	s := c.Snapshot()
	f, _ := s.ByStem("greet")
	if !f.Stale || len(f.Problems) == 0 || f.Problems[0].Line != 3 || !strings.Contains(f.Problems[0].Message, "nobody") {
		t.Fatalf("broken file = %+v, want stale with a problem at line 3 naming the input", f)
	}
	wf, ok := s.Workflow("greet.yaml")
	if !ok || wf.Inputs[0].Name != "who" {
		t.Fatalf("the last good version is not served: %v %v", wf, ok)
	}
	if raw, _ := s.Raw("greet.yaml"); string(raw) != brokenFlow {
		t.Fatalf("raw = %q, want the broken text as on disk", raw)
	}
	c.Apply([]registry.Change{{Path: "greet.yaml", Deleted: true}})
	if _, ok := c.Snapshot().Named("greet"); ok {
		t.Fatal("a deleted file is still served")
	}
}

func TestCatalogRecheckFollowsTheAgentsAWorkflowNames(t *testing.T) {
	agents := map[string]bool{"writer": true}
	c := NewCatalog(func(name string) bool { return agents[name] })
	c.Apply([]registry.Change{{Path: "w.yaml", Data: []byte("workflow: {name: w}\nsteps:\n  - {id: a, agent: writer, input: hi}\n")}})
	if f, _ := c.Snapshot().File("w.yaml"); f.Problems.HasErrors() {
		t.Fatalf("problems with the agent there: %v", f.Problems)
	}
	ch, stop := c.Subscribe()
	defer stop()
	delete(agents, "writer")
	c.Recheck()
	<-ch
	f, _ := c.Snapshot().File("w.yaml")
	if !f.Problems.HasErrors() || !f.Stale || f.Problems[0].Line != 3 {
		t.Fatalf("after the agent went: %+v, want a stale file with an error at line 3", f)
	}
}

func TestCatalogWarnsWhenTwoFilesShareAName(t *testing.T) {
	c := NewCatalog(nil)
	c.Apply([]registry.Change{{Path: "a.yaml", Data: []byte(goodFlow)}, {Path: "b.yml", Data: []byte(goodFlow)}})
	s := c.Snapshot()
	if a, _ := s.File("a.yaml"); len(a.Problems) != 0 {
		t.Errorf("a.yaml problems = %v", a.Problems)
	}
	b, _ := s.File("b.yml")
	if len(b.Problems) != 1 || !strings.Contains(b.Problems[0].Message, "a.yaml") {
		t.Errorf("b.yml problems = %v, want one naming a.yaml", b.Problems)
	}
	if len(s.Problems()) != 1 {
		t.Errorf("Problems = %v", s.Problems())
	}
}

func TestCatalogRefusesAFileOverTheSizeLimit(t *testing.T) {
	c := NewCatalog(nil)
	big := goodFlow + "# " + strings.Repeat("x", registry.MaxFileSize) + "\n"
	c.Apply([]registry.Change{{Path: "big.yaml", Data: []byte(big)}})
	f, _ := c.Snapshot().File("big.yaml")
	if len(f.Problems) != 1 || !strings.Contains(f.Problems[0].Message, "larger than") {
		t.Fatalf("problems = %v, want one saying the file is too big", f.Problems)
	}
}

func TestCatalogHashesAFileOnceAsItLoads(t *testing.T) {
	hashes := 0
	hashOf = func(data []byte) string { hashes++; return registry.Hash(data) }
	t.Cleanup(func() { hashOf = registry.Hash })
	c := NewCatalog(nil)
	c.Apply([]registry.Change{{Path: "greet.yaml", Data: []byte(goodFlow)}})
	if hashes != 1 {
		t.Errorf("a new file was hashed %d times, want once", hashes)
	}
	f, _ := c.Snapshot().ByStem("greet")
	wf, _ := c.Snapshot().Workflow("greet.yaml")
	if want := registry.Hash([]byte(goodFlow)); f.Hash != want || wf == nil || wf.Hash != want {
		t.Errorf("file hash %q, workflow %+v: want both %q", f.Hash, wf, want)
	}
	hashes = 0
	c.Apply([]registry.Change{{Path: "greet.yaml", Data: []byte(brokenFlow)}})
	if hashes != 1 {
		t.Errorf("a changed file was hashed %d times, want once", hashes)
	}
	hashes = 0
	c.Recheck()
	if hashes != 0 {
		t.Errorf("a recheck hashed %d times, want none (the content did not change)", hashes)
	}
}
