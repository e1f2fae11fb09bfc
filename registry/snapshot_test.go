package registry

import (
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
)

func agentFile(name string, extra ...string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(fmt.Sprintf("---\nname: %s\ndescription: Agent %s\n%s---\nYou are %s.\n", name, name, strings.Join(extra, ""), name))}
}

func mustLoad(t *testing.T, fsys fstest.MapFS) *Snapshot {
	t.Helper()
	s, err := Load(fsys, Options{})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return s
}

func TestLoadReadsSubfoldersAndSkipsHiddenFiles(t *testing.T) {
	s := mustLoad(t, fstest.MapFS{
		"a.md":               agentFile("a"),
		"team/b.agent.md":    agentFile("b"),
		"team/deep/c.md":     agentFile("c"),
		".hidden/d.md":       agentFile("d"),
		".e.md":              agentFile("e"),
		"notes.txt":          {Data: []byte("not an agent")},
		"team/deep/README":   {Data: []byte("nope")},
		"claude/f.md":        {Data: []byte("---\nname: f\ndescription: F\ntools: Read\n---\nF\n")},
		"broken/unclosed.md": {Data: []byte("---\nname: g\n")},
	})
	names := []string{}
	for _, a := range s.Agents() {
		names = append(names, a.Name)
	}
	if !slices.Equal(names, []string{"a", "b", "c", "f"}) {
		t.Fatalf("agents = %v", names)
	}
	files := []string{}
	for _, f := range s.Files() {
		files = append(files, f.Path)
	}
	if !slices.Equal(files, []string{"a.md", "broken/unclosed.md", "claude/f.md", "team/b.agent.md", "team/deep/c.md"}) {
		t.Fatalf("files = %v", files)
	}
	if f, _ := s.File("broken/unclosed.md"); len(f.Problems) != 1 || f.Problems[0].Line != 1 || f.Stale {
		t.Fatalf("broken file = %+v", f)
	}
	if a, ok := s.Agent("c"); !ok || a.File != "team/deep/c.md" {
		t.Fatalf("agent c = %+v, %v", a, ok)
	}
	if s.Version() != 1 {
		t.Fatalf("version = %d", s.Version())
	}
}

func TestLoadValidatesAcrossFiles(t *testing.T) {
	tests := []struct {
		name  string
		files fstest.MapFS
		want  []string // "file:line severity message-part"
	}{
		{"of two files loaded together with one id, the smaller path serves and the other is an error", fstest.MapFS{
			"a.md": agentFile("same"), "b.md": agentFile("same"),
		}, []string{`a.md:2 warning id "same" is also defined by b.md; this file is the one used because its path sorts first`, `b.md:2 error id "same" is already defined by a.md, which is the one used`}},
		{"an unknown sub-agent is a warning; patterns and general-purpose are fine", fstest.MapFS{
			"a.md": agentFile("a", "subagents:\n  allow: [ghost, \"*\", general-purpose]\n"),
		}, []string{`a.md:5 warning "ghost", but no agent has that name`}},
		{"a disabled sub-agent is a warning", fstest.MapFS{
			"a.md": agentFile("a", "subagents:\n  allow: [b]\n"), "b.md": agentFile("b", "enabled: false\n"),
		}, []string{`a.md:5 warning "b", which is disabled`}},
		{"self-delegation is an error", fstest.MapFS{
			"a.md": agentFile("a", "agents: [a]\n"),
		}, []string{`a.md:4 error delegates to itself`}},
		{"self-delegation with nesting is allowed", fstest.MapFS{
			"a.md": agentFile("a", "subagents:\n  allow: [a]\n  nested: true\n"),
		}, nil},
		{"a cycle among agents without nesting is an error on each", fstest.MapFS{
			"a.md": agentFile("a", "subagents:\n  allow: [b]\n"),
			"b.md": agentFile("b", "subagents:\n  allow: [c]\n"),
			"c.md": agentFile("c", "subagents:\n  allow: [a]\n"),
		}, []string{"a.md:5 error delegation cycle a → b → c → a", "b.md:5 error delegation cycle a → b → c → a", "c.md:5 error delegation cycle a → b → c → a"}},
		{"a cycle through an agent that opted into nesting is allowed", fstest.MapFS{
			"a.md": agentFile("a", "subagents:\n  allow: [b]\n"),
			"b.md": agentFile("b", "subagents:\n  allow: [a]\n  nested: true\n"),
		}, nil},
		{"an agent whose tool lists refuse delegating makes no cycle", fstest.MapFS{
			"a.md": agentFile("a", "subagents:\n  allow: [b]\n"),
			"b.md": agentFile("b", "tools: Read\nsubagents:\n  allow: [a]\n"),
			"c.md": agentFile("c", "subagents:\n  allow: [d]\n"),
			"d.md": agentFile("d", "disallowedTools: Task\nsubagents:\n  allow: [c]\n"),
		}, []string{"b.md:4 warning names no Task or Agent", "d.md:4 warning deny list names the delegation tool"}},
		{"a denied edge does not make a cycle", fstest.MapFS{
			"a.md": agentFile("a", "subagents:\n  allow: [b]\n  deny: [b]\n"),
			"b.md": agentFile("b", "subagents:\n  allow: [a]\n"),
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, p := range mustLoad(t, tc.files).Problems() {
				got = append(got, fmt.Sprintf("%s:%d %s %s", p.File, p.Line, p.Severity, p.Message))
			}
			if len(got) != len(tc.want) {
				t.Fatalf("problems:\n%s\nwant %d", strings.Join(got, "\n"), len(tc.want))
			}
			for i, w := range tc.want {
				file, rest, _ := strings.Cut(w, " ")
				sev, msg, _ := strings.Cut(rest, " ")
				if !strings.HasPrefix(got[i], file+" "+sev+" ") || !strings.Contains(got[i], msg) {
					t.Errorf("problem %d = %q, want %q", i, got[i], w)
				}
			}
		})
	}
}

func TestARemoteAgentInAnAllowListIsNoWarning(t *testing.T) {
	s, err := Load(fstest.MapFS{"a.md": agentFile("a", "subagents:\n  allow: [far, ghost]\n")}, Options{Remote: []string{"far"}})
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Problems(); len(p) != 1 || !strings.Contains(p[0].Message, `"ghost", but no agent has that name`) {
		t.Fatalf("problems = %v, want ghost's warning alone", p)
	}
}

func TestApplyKeepsTheLastGoodVersionOfABrokenFile(t *testing.T) {
	s := mustLoad(t, fstest.MapFS{"a.md": agentFile("a", "max_turns: 4\n")})
	broken := s.Apply(Change{Path: "a.md", Data: []byte("---\nname: a\ndescription: A\nmax_turns: many\n---\n")})
	if broken.Version() != 2 {
		t.Fatalf("version = %d", broken.Version())
	}
	a, ok := broken.Agent("a")
	if !ok || a.MaxTurns != 4 {
		t.Fatalf("served %+v, %v; want the last good version", a, ok)
	}
	f, _ := broken.File("a.md")
	if !f.Stale || len(f.Problems) != 1 || f.Problems[0].Line != 4 || f.Hash != Hash([]byte("---\nname: a\ndescription: A\nmax_turns: many\n---\n")) {
		t.Fatalf("file = %+v", f)
	}
	fixed := broken.Apply(Change{Path: "a.md", Data: []byte("---\nname: a\ndescription: A\nmax_turns: 7\n---\n")})
	if a, _ := fixed.Agent("a"); a.MaxTurns != 7 {
		t.Fatalf("fixed agent = %+v", a)
	}
	if f, _ := fixed.File("a.md"); f.Stale || len(f.Problems) != 0 {
		t.Fatalf("fixed file = %+v", f)
	}
	gone := fixed.Apply(Change{Path: "a.md", Deleted: true})
	if _, ok := gone.Agent("a"); ok || len(gone.Files()) != 0 {
		t.Fatal("deleted file still served")
	}
}

func TestApplyReturnsTheSameSnapshotWhenNothingChanged(t *testing.T) {
	fsys := fstest.MapFS{"a.md": agentFile("a")}
	s := mustLoad(t, fsys)
	if s.Apply(Change{Path: "a.md", Data: fsys["a.md"].Data}, Change{Path: "zz.md", Deleted: true}) != s {
		t.Fatal("a no-op change made a new snapshot")
	}
}

func TestCheckReportsCrossFileProblemsBeforeSaving(t *testing.T) {
	s := mustLoad(t, fstest.MapFS{"a.md": agentFile("a"), "b.md": agentFile("b", "subagents:\n  allow: [a]\n")})
	d, _ := s.Document("a.md")
	if err := d.Set("subagents.allow", []string{"b"}); err != nil {
		t.Fatal(err)
	}
	probs := s.Check("a.md", d)
	if len(probs) != 1 || !strings.Contains(probs[0].Message, "delegation cycle a → b → a") || probs[0].Field != "subagents.allow" || probs[0].Line != 5 {
		t.Fatalf("problems = %+v", probs)
	}
	if len(s.Problems()) != 0 {
		t.Fatal("Check changed the snapshot")
	}
	d2, _ := Parse("new.md", []byte("---\nname: b\ndescription: copy\n---\n"))
	if probs := s.Check("new.md", d2); len(probs) != 1 || !strings.Contains(probs[0].Message, "already defined by b.md") {
		t.Fatalf("duplicate not reported: %+v", probs)
	}
}

func TestSnapshotDocumentIsACopy(t *testing.T) {
	s := mustLoad(t, fstest.MapFS{"a.md": agentFile("a")})
	d, ok := s.Document("a.md")
	if !ok {
		t.Fatal("no document")
	}
	d.SetBody("changed")
	again, _ := s.Document("a.md")
	if again.Body() == "changed" {
		t.Fatal("editing a document changed the snapshot")
	}
	if _, ok := s.Document("missing.md"); ok {
		t.Fatal("document for a missing file")
	}
}

func TestRegistrySignalsSubscribersWithoutBlocking(t *testing.T) {
	r := New(nil)
	ch, cancel := r.Subscribe()
	s1 := mustLoad(t, fstest.MapFS{"a.md": agentFile("a")})
	for range 3 {
		r.Replace(s1) // no reader yet: signals coalesce, the writer does not block
	}
	<-ch
	select {
	case <-ch:
		t.Fatal("three replaces gave more than one pending signal")
	default:
	}
	if r.Snapshot() != s1 {
		t.Fatal("Snapshot is not the replaced one")
	}
	cancel()
	cancel()
	r.Replace(s1)
	if _, open := <-ch; open {
		t.Fatal("signal after unsubscribe")
	}
}

func TestRegistryReadersSeeWholeSnapshots(t *testing.T) {
	s1 := mustLoad(t, fstest.MapFS{"a.md": agentFile("a"), "b.md": agentFile("b")})
	s2 := s1.Apply(Change{Path: "c.md", Data: agentFile("c").Data})
	r := New(s1)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				s := r.Snapshot()
				if n := len(s.Agents()); n != len(s.Files()) {
					t.Errorf("snapshot with %d agents and %d files", n, len(s.Files()))
					return
				}
			}
		})
	}
	for i := range 200 {
		r.Replace([]*Snapshot{s1, s2}[i%2])
	}
	close(stop)
	wg.Wait()
}

func TestASecondFileWithAServedIdNeverTakesItOver(t *testing.T) {
	// "z.md" serves "same" first; "a.md" appears later with the same id and
	// a smaller path: z.md must keep serving, whatever changes after.
	s := mustLoad(t, fstest.MapFS{"z.md": agentFile("same", "max_turns: 1\n")})
	s = s.Apply(Change{Path: "a.md", Data: agentFile("same", "max_turns: 2\n").Data})
	assertServed := func(s *Snapshot, file, reason string) {
		t.Helper()
		if a, _ := s.Agent("same"); a.File != file {
			t.Fatalf("served %s, want %s", a.File, file)
		}
		d, ok := s.Duplicates("same")
		if !ok || d.Served != file || d.Reason != reason {
			t.Fatalf("duplicates = %+v, want %s served because %q", d, file, reason)
		}
	}
	assertServed(s, "z.md", reasonFirst)
	if f, _ := s.File("a.md"); len(f.Problems) != 1 || f.Problems[0].Severity != SeverityError || !strings.Contains(f.Problems[0].Message, "already defined by z.md") {
		t.Fatalf("newcomer problems = %+v", f.Problems)
	}
	// An edit of the serving file, or of an unrelated one, changes nothing.
	s = s.Apply(Change{Path: "z.md", Data: agentFile("same", "max_turns: 3\n").Data}, Change{Path: "b.md", Data: agentFile("b").Data})
	assertServed(s, "z.md", reasonFirst)
	// Only when the serving file goes does the other take over.
	s = s.Apply(Change{Path: "z.md", Deleted: true})
	if a, _ := s.Agent("same"); a.File != "a.md" {
		t.Fatalf("after deleting z.md served %s", a.File)
	}
	if _, dup := s.Duplicates("same"); dup || len(s.Problems()) != 0 {
		t.Fatalf("problems after the duplicate went: %v", s.Problems())
	}
}

func TestFilesWithOneIdAtStartUpServeTheSmallerPath(t *testing.T) {
	s := mustLoad(t, fstest.MapFS{"z.md": agentFile("same"), "a.md": agentFile("same"), "m/x.md": agentFile("same")})
	d, ok := s.Duplicates("same")
	if !ok || d.Served != "a.md" || d.Reason != reasonSorted || !slices.Equal(d.Ignored, []string{"m/x.md", "z.md"}) {
		t.Fatalf("duplicates = %+v", d)
	}
	if a, _ := s.Agent("same"); a.File != "a.md" {
		t.Fatalf("served %s", a.File)
	}
	// The reason survives later rebuilds.
	s = s.Apply(Change{Path: "b.md", Data: agentFile("b").Data})
	if d, _ := s.Duplicates("same"); d.Served != "a.md" || d.Reason != reasonSorted {
		t.Fatalf("after a rebuild: %+v", d)
	}
}

func TestProblemsForFindsTheFileThatWouldDefineAnId(t *testing.T) {
	s := mustLoad(t, fstest.MapFS{
		"research.md": {Data: []byte("---\nname: research\ndescription: [unclosed\n---\n")},
		"writer.md":   {Data: []byte("---\ndescription: x\n")},
		"ok.md":       agentFile("ok"),
	})
	for id, want := range map[string]string{"research": "research.md:3: invalid YAML", "writer": "writer.md:1: the opening --- on line 1 is never closed"} {
		if _, ok := s.Agent(id); ok {
			t.Fatalf("%s is served", id)
		}
		probs := s.ProblemsFor(id)
		if len(probs) != 1 || !strings.HasPrefix(probs[0].Error(), want) {
			t.Fatalf("ProblemsFor(%s) = %v, want %q", id, probs, want)
		}
	}
	if probs := s.ProblemsFor("ok"); len(probs) != 0 {
		t.Fatalf("ProblemsFor(ok) = %v", probs)
	}
}

// TestTheServingFileChangesOnlyWhenItGoes drives random adds, edits and
// deletes of files that share one id: whatever happens to the others, the
// file serving the id stays the same until it is deleted or takes another id.
func TestTheServingFileChangesOnlyWhenItGoes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	files := []string{"a.md", "b.md", "c/d.md", "e.md", "z.md"}
	s := Empty(Options{})
	for step := range 2000 {
		before, had := s.Agent("same")
		p := files[rng.IntN(len(files))]
		var c Change
		switch rng.IntN(4) {
		case 0:
			c = Change{Path: p, Deleted: true}
		case 1:
			c = Change{Path: p, Data: agentFile("other-" + strings.TrimSuffix(path.Base(p), ".md")).Data}
		default:
			c = Change{Path: p, Data: agentFile("same", fmt.Sprintf("max_turns: %d\n", step+1)).Data}
		}
		s = s.Apply(c)
		after, has := s.Agent("same")
		servingWent := had && c.Path == before.File && (c.Deleted || !strings.Contains(string(c.Data), "name: same\n"))
		if had && !servingWent && (!has || after.File != before.File) {
			t.Fatalf("step %d: %+v moved the id from %s to %s", step, c.Path, before.File, after.File)
		}
		if d, dup := s.Duplicates("same"); dup && d.Served != after.File {
			t.Fatalf("step %d: Duplicates says %s, the snapshot serves %s", step, d.Served, after.File)
		}
	}
}
