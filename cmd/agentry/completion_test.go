package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// wordsByRef loads bash-completion, whose _get_comp_words_by_ref cobra's
// bash script calls (`agentry completion bash --help` says it needs that
// package); make deps installs Debian's bash-completion.
const wordsByRef = `source /usr/share/bash-completion/bash_completion`

// TestBashCompletesCommandsAgentsAndWorkflows loads `agentry completion
// bash` into a real bash and presses TAB as a user would: the script asks
// the binary (`agentry __complete ...`), which reads the agents and
// workflows folders of the configuration.
func TestBashCompletesCommandsAgentsAndWorkflows(t *testing.T) {
	bin := buildTraceTestBinary(t)
	dir := t.TempDir()
	writeFile(t, dir, "agents/research-coordinator.md", "---\nname: research-coordinator\ndescription: Coordinates\n---\nYou coordinate.\n")
	writeFile(t, dir, "agents/reviewer.md", "---\nname: reviewer\ndescription: Reviews\n---\nYou review.\n")
	writeFile(t, dir, "agents/leaf.md", "---\nname: leaf\ndescription: Answers\n---\nYou answer.\n")
	writeFile(t, dir, "skills/pdf-forms/SKILL.md", "---\nname: pdf-forms\ndescription: Fills PDF forms.\n---\nFill the form.\n")
	workflows, err := filepath.Abs("../../workflows")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "agentry.bash")
	out, err := exec.Command(bin, "completion", "bash").Output()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, out, 0o644); err != nil {
		t.Fatal(err)
	}
	// complete LINE prints what TAB offers at the end of LINE, one a line.
	complete := func(line string) []string {
		t.Helper()
		words := strings.Fields(line)
		if strings.HasSuffix(line, " ") {
			words = append(words, "")
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "'" + w + "'"
		}
		sh := wordsByRef + `
source "$1"
COMP_WORDS=(` + strings.Join(quoted, " ") + `)
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMP_LINE="$2"; COMP_POINT=${#COMP_LINE}
__start_agentry
printf '%s\n' "${COMPREPLY[@]}"`
		cmd := exec.Command("bash", "--norc", "--noprofile", "-c", sh, "bash", script, line)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		// compopt (no space after a completed prefix) works only while bash
		// completes a line; called as here, it says so and does nothing else.
		if complaint := regexp.MustCompile(`(?m)^.*compopt: not currently executing completion function\n`); err != nil || complaint.ReplaceAllString(stderr.String(), "") != "" {
			t.Fatalf("bash: %v\n%s", err, stderr.String())
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				got = append(got, l)
			}
		}
		return got
	}
	run := exec.Command(bin, "run", "leaf", "look it up", "--model", "demo", "--json")
	run.Dir = dir
	out, err = run.Output()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	var ran struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal(out, &ran); err != nil || ran.RunID == "" {
		t.Fatalf("run printed %s (%v), want its run_id", out, err)
	}
	for _, c := range []struct {
		line string
		want []string
	}{
		{"agentry ru", []string{"run"}},
		{"agentry traces show ", []string{ran.RunID}},
		{"agentry traces show " + ran.RunID + " ", nil}, // one RUN_ID only
		{"agentry run leaf again --replay ", []string{ran.RunID}},
		{"agentry workflow ", []string{"explain", "new", "run", "validate"}},
		{"agentry run ", []string{"leaf", "research-coordinator", "reviewer"}},
		{"agentry run re", []string{"research-coordinator", "reviewer"}},
		{"agentry chat --agents agents l", []string{"leaf"}},
		{"agentry permissions leaf --via research-coordinator,re", []string{"research-coordinator,research-coordinator", "research-coordinator,reviewer"}},
		{"agentry workflow run --workflows " + workflows + " m", []string{"map-reduce", "multi-angle-analysis", "multi-criteria-lead-scoring"}},
		{"agentry workflow explain --workflows " + workflows + " content", []string{"content-pipeline"}},
		{"agentry history --workflow --workflows " + workflows + " content", []string{"content-pipeline"}},
		{"agentry history --skill pd", []string{"pdf-forms"}},
		{"agentry history re", []string{"research-coordinator", "reviewer"}},
		{"agentry run --mo", []string{"--model"}},
		{"agentry help tr", []string{"traces"}},
	} {
		if got := complete(c.line); strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%q<TAB> offers %q, want %q", c.line, got, c.want)
		}
	}
}
