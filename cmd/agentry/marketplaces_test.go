//go:build marketplaces && unix

package main

// The two public marketplaces of issue 27, installed whole from local
// clones and loaded (docs/plugins.md). They are not in the repository and
// CI cannot download them, so these run only with the marketplaces tag:
//
//	git clone https://github.com/anthropics/skills   $DIR/anthropics+skills
//	git clone https://github.com/wshobson/agents     $DIR/wshobson+agents
//	AGENTRY_MARKETPLACES=$DIR go test -tags marketplaces -run Marketplaces -bench Marketplaces -benchtime 20x ./cmd/agentry/
//
// Without AGENTRY_MARKETPLACES they fail: the tag asks for them.

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/plugin"
	"github.com/agentry/agentry/registry/skills"
	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

var marketplaces = []string{"anthropics+skills", "wshobson+agents"}

func marketplacesDir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("AGENTRY_MARKETPLACES")
	if dir == "" {
		tb.Fatal("AGENTRY_MARKETPLACES is not set: point it at the folder holding the clones anthropics+skills and wshobson+agents")
	}
	return dir
}

// installMarketplaces installs the named marketplaces into a new project
// folder and returns its configuration.
func installMarketplaces(tb testing.TB, names ...string) config.Config {
	tb.Helper()
	src := marketplacesDir(tb)
	dir := tb.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "agents"), 0o755); err != nil {
		tb.Fatal(err)
	}
	cfg := config.Default()
	cfg.Agents, cfg.Workspace = filepath.Join(dir, "agents"), dir
	cfg.Plugins = filepath.Join(dir, config.DefaultPlugins)
	st := &plugin.Store{Dir: cfg.Plugins}
	for _, m := range names {
		rep, err := st.Add(context.Background(), filepath.Join(src, m), nil)
		if err != nil {
			tb.Fatalf("%s: %v", m, err)
		}
		for _, sk := range rep.Skipped {
			tb.Logf("%s: skipped %s: %s", m, sk.Name, sk.Reason)
		}
	}
	return cfg
}

func TestMarketplacesInstallWholeAndLoadWithoutErrors(t *testing.T) {
	for _, m := range marketplaces {
		t.Run(m, func(t *testing.T) {
			cfg := installMarketplaces(t, m)
			list, err := (&plugin.Store{Dir: cfg.Plugins}).List()
			if err != nil {
				t.Fatal(err)
			}
			var agents, skillFiles, commands, hooks int
			for _, p := range list {
				agents, skillFiles, commands, hooks = agents+p.Agents, skillFiles+p.Skills, commands+p.Commands, hooks+p.Hooks
			}
			s, _, _ := testSession()
			reg, closeAll, err := s.openAgents(context.Background(), cfg, false)
			if err != nil {
				t.Fatal(err)
			}
			defer closeAll()
			snap, lib := reg.Snapshot(), s.lib.Snapshot()
			problems := append(append(snap.Problems(), lib.Problems()...), skills.CheckAgents(snap, lib)...)
			errs, warnings := 0, map[string]int{}
			for _, p := range problems {
				if p.Severity == registry.SeverityError {
					errs++
					t.Errorf("error: %s", p.Error())
					continue
				}
				warnings[warningKind(p.Message)]++
				t.Logf("warning %s", p.Error())
			}
			t.Logf("%s: %d plugins; files: %d agents, %d skills, %d commands, %d hook commands; loaded: %d agents, %d skills, %d commands; %d errors, %d warnings",
				m, len(list), agents, skillFiles, commands, hooks, len(snap.Agents()), len(lib.Skills()), len(lib.Commands()), errs, len(problems)-errs)
			for _, k := range slices.Sorted(mapKeys(warnings)) {
				t.Logf("  warning ×%d: %s", warnings[k], k)
			}
			if len(snap.Agents()) != agents || len(lib.Skills()) != skillFiles || len(lib.Commands()) != commands {
				t.Errorf("loaded %d agents, %d skills, %d commands; the installed files hold %d, %d, %d",
					len(snap.Agents()), len(lib.Skills()), len(lib.Commands()), agents, skillFiles, commands)
			}
		})
	}
}

// warningKind is a warning without its particulars, to count alike ones.
func warningKind(msg string) string {
	if i := strings.IndexAny(msg, `"(`); i > 0 {
		return strings.TrimSpace(msg[:i]) + " …"
	}
	return msg
}

func mapKeys(m map[string]int) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// BenchmarkLoadMarketplaces loads both marketplaces as a command does
// (the agents folder, the plugins' agents, every skill and command, each
// file parsed and validated) and, alternating with it in the same run, a
// baseline that only walks the plugins folder and reads every Markdown
// file. It reports the medians of both, in wall time and in the process's
// CPU time (user and system, all threads: on a shared machine wall time
// mostly says how busy the others are), their ratios, and the agents and
// skills found.
func BenchmarkLoadMarketplaces(b *testing.B) {
	cfg := installMarketplaces(b, marketplaces...)
	var agents, skills int
	var loads, reads, loadsCPU, readsCPU []time.Duration
	for b.Loop() {
		t0, c0 := time.Now(), cpuTime(b)
		readMarkdown(b, cfg.Plugins)
		t1, c1 := time.Now(), cpuTime(b)
		s, _, _ := testSession()
		reg, closeAll, err := s.openAgents(context.Background(), cfg, false)
		if err != nil {
			b.Fatal(err)
		}
		agents, skills = len(reg.Snapshot().Agents()), len(s.lib.Snapshot().Skills())
		closeAll()
		loads, reads = append(loads, time.Since(t1)), append(reads, t1.Sub(t0))
		loadsCPU, readsCPU = append(loadsCPU, cpuTime(b)-c1), append(readsCPU, c1-c0)
	}
	report := func(loads, reads []time.Duration, unit string) {
		load, read := median(loads), median(reads)
		b.ReportMetric(float64(load.Microseconds())/1000, "ms/load-median"+unit)
		b.ReportMetric(float64(read.Microseconds())/1000, "ms/read-median"+unit)
		b.ReportMetric(float64(load)/float64(read), "load/read-ratio"+unit)
	}
	report(loads, reads, "")
	report(loadsCPU, readsCPU, "-cpu")
	b.ReportMetric(float64(agents), "agents")
	b.ReportMetric(float64(skills), "skills")
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// readMarkdown reads every .md file under dir: the I/O a load cannot do
// without.
func readMarkdown(tb testing.TB, dir string) {
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		_, err = os.ReadFile(p)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkSkillsPrompt200 measures the system prompt section of an agent
// that may use 200 skills (both marketplaces and the fixture's): its size
// in bytes and in tokens of OpenAI's o200k_base and cl100k_base encodings
// (tiktoken-go, with the encodings embedded: no download), in all and per
// skill. It writes the section to $AGENTRY_SKILLS_PROMPT_OUT when set.
func BenchmarkSkillsPrompt200(b *testing.B) {
	cfg := installMarketplaces(b, marketplaces...)
	if _, err := (&plugin.Store{Dir: cfg.Plugins}).Add(context.Background(), marketDir, nil); err != nil {
		b.Fatal(err)
	}
	s, _, _ := testSession()
	_, closeAll, err := s.openAgents(context.Background(), cfg, false)
	if err != nil {
		b.Fatal(err)
	}
	defer closeAll()
	skills := s.lib.Snapshot().Skills()
	if len(skills) < 200 {
		b.Fatalf("%d skills; want 200", len(skills))
	}
	skills = skills[:200]
	var prompt string
	for b.Loop() {
		prompt = delegation.SkillsPrompt(skills)
	}
	b.ReportMetric(float64(len(prompt)), "bytes")
	for _, name := range []string{tiktoken.MODEL_O200K_BASE, tiktoken.MODEL_CL100K_BASE} {
		n := countTokens(b, name, prompt)
		b.ReportMetric(float64(n), "tokens_"+name)
		b.ReportMetric(float64(n)/float64(len(skills)), "tokens/skill_"+name)
	}
	if out := os.Getenv("AGENTRY_SKILLS_PROMPT_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(prompt), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// countTokens is how many tokens text is in the named tiktoken encoding,
// read from the copy tiktoken-go-loader embeds.
func countTokens(tb testing.TB, encoding, text string) int {
	tb.Helper()
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding(encoding)
	if err != nil {
		tb.Fatal(err)
	}
	return len(enc.Encode(text, nil, nil))
}
