package registry

import (
	"cmp"
	"io/fs"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// corpusDir is the folder of agent files the corpus test and benchmark
// load: $AGENTRY_CORPUS (e.g. the public collections of Claude Code and VS
// Code agents, extracted outside the repository), else testdata/corpus.
func corpusDir() string { return cmp.Or(os.Getenv("AGENTRY_CORPUS"), "testdata/corpus") }

// TestCorpusLoadsPerCollection loads each top-level folder of the corpus as
// its own agents folder (collections reuse each other's ids) and reports how
// many files load with zero errors. On the repository's own corpus each
// file must have exactly the problems its "want:" lines name and round-trip
// byte-identical; for an outside corpus (AGENTRY_CORPUS) the figures and the most
// frequent errors are logged, as a measurement.
func TestCorpusLoadsPerCollection(t *testing.T) {
	dir := corpusDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		s, err := Load(os.DirFS(dir+"/"+e.Name()), Options{})
		if err != nil {
			t.Fatal(err)
		}
		files := s.Files()
		clean, identical, warned := 0, 0, 0
		reasons := map[string]int{}
		for _, f := range files {
			if os.Getenv("AGENTRY_CORPUS") == "" {
				checkWants(t, s, e.Name(), f)
			}
			if roundTrips(s, f.Path) {
				identical++
			} else if _, parsed := s.Document(f.Path); parsed && os.Getenv("AGENTRY_CORPUS") == "" {
				t.Errorf("%s/%s: re-submitting every field changed the file", e.Name(), f.Path)
			}
			if slices.ContainsFunc(f.Problems, func(p Problem) bool { return p.Severity == SeverityWarning }) {
				warned++
			}
			for _, p := range f.Problems {
				if p.Severity == SeverityWarning {
					reasons["warning: "+errorKind(p.Message)]++
				}
			}
			if !HasError(f.Problems) {
				clean++
				continue
			}
			for _, p := range f.Problems {
				if p.Severity == SeverityError {
					reasons[errorKind(p.Message)]++
				}
			}
		}
		t.Logf("%s: %d of %d files load with zero errors (%d with warnings); %d agents served; %d round-trip byte-identical", e.Name(), clean, len(files), warned, len(s.Agents()), identical)
		kinds := slices.Collect(func(yield func(string) bool) {
			for k := range reasons {
				if !yield(k) {
					return
				}
			}
		})
		slices.SortFunc(kinds, func(a, b string) int { return cmp.Compare(reasons[b], reasons[a]) })
		for _, k := range kinds[:min(len(kinds), 8)] {
			t.Logf("  %4d × %s", reasons[k], k)
		}
	}
}

var wantRE = regexp.MustCompile(`(?m)want: (error|warning) (.+?)\r?$`)

// checkWants compares a file's problems with the "want: SEVERITY TEXT"
// lines it carries (in comments, or in a broken file wherever they fit):
// every problem must be wanted and every want must be met.
func checkWants(t *testing.T, s *Snapshot, dir string, f File) {
	t.Helper()
	raw, _ := s.Raw(f.Path)
	wants := wantRE.FindAllStringSubmatch(string(raw), -1)
	met := make([]bool, len(wants))
	for _, p := range f.Problems {
		i := slices.IndexFunc(wants, func(w []string) bool { return w[1] == p.Severity && strings.Contains(p.Message, w[2]) })
		if i < 0 {
			t.Errorf("%s/%s: unexpected %s %v", dir, f.Path, p.Severity, p)
			continue
		}
		met[i] = true
	}
	for i, w := range wants {
		if !met[i] {
			t.Errorf("%s/%s: missing %s %q; got %v", dir, f.Path, w[1], w[2], f.Problems)
		}
	}
}

// roundTrips reports whether the file stays byte-identical when parsed and
// every field is set to its own value, as the editor's form does on save.
func roundTrips(s *Snapshot, path string) bool {
	raw, _ := s.Raw(path)
	d, ok := s.Document(path)
	if !ok {
		return false
	}
	for _, key := range []string{"name", "description", "model", "tools.allow", "tools.deny", "subagents.allow", "subagents.deny",
		"subagents.execution", "subagents.max_concurrent", "subagents.context", "subagents.nested", "max_turns", "timeout",
		"retry.max_attempts", "retry.backoff", "enabled"} {
		v, _ := d.Get(key)
		if d.Set(key, v) != nil {
			return false
		}
	}
	d.SetBody(d.Body())
	return string(d.Bytes()) == string(raw)
}

// errorKind shortens a message to its first words, to group similar errors.
func errorKind(msg string) string {
	words := strings.Fields(msg)
	return strings.Join(words[:min(len(words), 6)], " ")
}

// BenchmarkLoadCorpus loads every agent file of the corpus (see corpusDir)
// as one folder: for the 584 files of the three public collections the
// target is 100 ms.
func BenchmarkLoadCorpus(b *testing.B) {
	fsys := os.DirFS(corpusDir())
	paths, err := agentPaths(fsys)
	if err != nil || len(paths) == 0 {
		b.Fatalf("corpus %s: %d files, %v", corpusDir(), len(paths), err)
	}
	// Read once so the benchmark measures parsing, not a cold page cache.
	for _, p := range paths {
		if _, err := fs.ReadFile(fsys, p); err != nil {
			b.Fatal(err)
		}
	}
	var cpu time.Duration
	for b.Loop() {
		cpu0 := cpuTime()
		s, err := Load(fsys, Options{})
		cpu += cpuTime() - cpu0
		if err != nil || len(s.Files()) != len(paths) {
			b.Fatalf("loaded %d of %d files: %v", len(s.Files()), len(paths), err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(len(paths)), "files")
}

func TestOwnCorpusFormsGiveTheseAgents(t *testing.T) {
	s, err := Load(os.DirFS("testdata/corpus/forms"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{ // id → label, models
		"4.1-beast":             "4.1-beast [GPT-4.1]",
		"code-reviewer":         "code-reviewer [sonnet]",
		"crlf-bom":              "crlf-bom []",
		"csharpexpert":          "csharpexpert (C# Expert) [Claude Sonnet 4.5 (copilot) GPT-5 (copilot)]",
		"no-name":               "no-name [haiku demo]",
		"powershell-5.1-expert": "powershell-5.1-expert [sonnet openai:gpt-4.1-mini]",
		"research-coordinator":  "research-coordinator (Research Coordinator) [openai:gpt-4.1-mini]",
	}
	got := map[string]string{}
	for _, a := range s.Agents() {
		got[a.Name] = a.Label() + " [" + strings.Join(a.Models, " ") + "]"
	}
	if !maps.Equal(got, want) {
		t.Fatalf("agents:\n%v\nwant\n%v", got, want)
	}
	if a, _ := s.Agent("code-reviewer"); a.MaxTurns != 5 {
		t.Errorf("maxTurns gave %d turns, want 5", a.MaxTurns)
	}
	for id, backoff := range map[string]string{"powershell-5.1-expert": BackoffLinear, "no-name": BackoffNone, "crlf-bom": BackoffConstant, "code-reviewer": DefaultBackoff} {
		if a, _ := s.Agent(id); a.Retry.Backoff != backoff {
			t.Errorf("%s backoff = %q, want %q", id, a.Retry.Backoff, backoff)
		}
	}
}

func TestVSCodeSubAgentsNamedByDisplayNameResolveToIds(t *testing.T) {
	s, err := Load(os.DirFS("testdata/corpus/vscode-team"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, ok := s.Agent("rug-orchestrator")
	if !ok || !slices.Equal(a.Subagents.Rules.Allow, []string{"swe-subagent", "qa-subagent"}) {
		t.Fatalf("allow = %q (%v), want the ids", a.Subagents.Rules.Allow, ok)
	}
	for _, b := range s.Agents() {
		if b.Name == "rug-orchestrator" && !slices.Equal(b.Subagents.Rules.Allow, a.Subagents.Rules.Allow) {
			t.Fatalf("Agents() and Agent() disagree: %q", b.Subagents.Rules.Allow)
		}
	}
	raw, _ := s.Raw("rug-orchestrator.agent.md")
	if !strings.Contains(string(raw), "agents: ['SWE', 'QA']") {
		t.Fatal("the file's spelling changed")
	}
}
