package registry

import (
	"testing"
	"time"
)

const richFile = `---
# Who this is
name: research   # unique
description: Coordinates research

tools:
  allow: [web, filesystem.read_file]   # what it may use
  deny: [filesystem.write_file]
# Delegation
subagents:
  allow: [analyst, writer]
  # how many at once
  max_concurrent: 3
color: blue
x-owner: {team: data, since: 2024}
retry: {max_attempts: 2, backoff: exponential}
---
You coordinate research.
`

func TestSetChangesOnlyTheEditedEntry(t *testing.T) {
	tests := []struct {
		name  string
		key   string
		value any
		want  string
	}{
		{"a top-level scalar keeps its line comment", "description", "Plans and delegates research", `---
# Who this is
name: research   # unique
description: Plans and delegates research

tools:
  allow: [web, filesystem.read_file]   # what it may use
  deny: [filesystem.write_file]
# Delegation
subagents:
  allow: [analyst, writer]
  # how many at once
  max_concurrent: 3
color: blue
x-owner: {team: data, since: 2024}
retry: {max_attempts: 2, backoff: exponential}
---
You coordinate research.
`},
		{"a nested key keeps the comments inside its entry", "subagents.max_concurrent", 4, `---
# Who this is
name: research   # unique
description: Coordinates research

tools:
  allow: [web, filesystem.read_file]   # what it may use
  deny: [filesystem.write_file]
# Delegation
subagents:
  allow: [analyst, writer]
  # how many at once
  max_concurrent: 4
color: blue
x-owner: {team: data, since: 2024}
retry: {max_attempts: 2, backoff: exponential}
---
You coordinate research.
`},
		{"a flow mapping stays a flow mapping", "retry.backoff", "constant", `---
# Who this is
name: research   # unique
description: Coordinates research

tools:
  allow: [web, filesystem.read_file]   # what it may use
  deny: [filesystem.write_file]
# Delegation
subagents:
  allow: [analyst, writer]
  # how many at once
  max_concurrent: 3
color: blue
x-owner: {team: data, since: 2024}
retry: {max_attempts: 2, backoff: constant}
---
You coordinate research.
`},
		{"a new known key goes after its usual predecessor", "model", "sonnet", `---
# Who this is
name: research   # unique
description: Coordinates research
model: sonnet

tools:
  allow: [web, filesystem.read_file]   # what it may use
  deny: [filesystem.write_file]
# Delegation
subagents:
  allow: [analyst, writer]
  # how many at once
  max_concurrent: 3
color: blue
x-owner: {team: data, since: 2024}
retry: {max_attempts: 2, backoff: exponential}
---
You coordinate research.
`},
		{"a new nested key is added to its mapping", "subagents.execution", "sequential", `---
# Who this is
name: research   # unique
description: Coordinates research

tools:
  allow: [web, filesystem.read_file]   # what it may use
  deny: [filesystem.write_file]
# Delegation
subagents:
  allow: [analyst, writer]
  # how many at once
  max_concurrent: 3
  execution: sequential
color: blue
x-owner: {team: data, since: 2024}
retry: {max_attempts: 2, backoff: exponential}
---
You coordinate research.
`},
		{"deleting a key removes its comment too", "subagents", nil, `---
# Who this is
name: research   # unique
description: Coordinates research

tools:
  allow: [web, filesystem.read_file]   # what it may use
  deny: [filesystem.write_file]
color: blue
x-owner: {team: data, since: 2024}
retry: {max_attempts: 2, backoff: exponential}
---
You coordinate research.
`},
		{"a new unknown key goes last", "x-reviewed", true, `---
# Who this is
name: research   # unique
description: Coordinates research

tools:
  allow: [web, filesystem.read_file]   # what it may use
  deny: [filesystem.write_file]
# Delegation
subagents:
  allow: [analyst, writer]
  # how many at once
  max_concurrent: 3
color: blue
x-owner: {team: data, since: 2024}
retry: {max_attempts: 2, backoff: exponential}
x-reviewed: true
---
You coordinate research.
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse("research.md", []byte(richFile))
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Set(tc.key, tc.value); err != nil {
				t.Fatalf("set: %v", err)
			}
			if got := string(d.Bytes()); got != tc.want {
				t.Fatalf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestSetKeepsTheClaudeCodeSpellingOfLists(t *testing.T) {
	src := "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep\ndisallowedTools: Write\n---\nReview.\n"
	d, err := Parse("reviewer.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := d.Get("tools.allow"); len(v.([]any)) != 2 {
		t.Fatalf("Get(tools.allow) = %v", v)
	}
	if err := d.Set("tools.allow", []string{"Read", "Grep", "Glob"}); err != nil {
		t.Fatal(err)
	}
	if err := d.Set("tools.deny", []string{"Write", "Edit"}); err != nil {
		t.Fatal(err)
	}
	want := "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep, Glob\ndisallowedTools: Write, Edit\n---\nReview.\n"
	if got := string(d.Bytes()); got != want {
		t.Fatalf("got %q", got)
	}
}

func TestSetOnACRLFFileWritesCRLF(t *testing.T) {
	d, err := Parse("a.md", []byte("---\r\nname: a\r\ndescription: A\r\n---\r\nBody\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Set("subagents.allow", []string{"b"}); err != nil {
		t.Fatal(err)
	}
	want := "---\r\nname: a\r\ndescription: A\r\nsubagents:\r\n  allow: [b]\r\n---\r\nBody\r\n"
	if got := string(d.Bytes()); got != want {
		t.Fatalf("got %q", got)
	}
}

func TestSetCreatesFrontmatterForAPlainMarkdownFile(t *testing.T) {
	d, _ := Parse("helper.md", []byte("Help people.\n"))
	if err := d.Set("description", "Helps"); err != nil {
		t.Fatal(err)
	}
	if got := string(d.Bytes()); got != "---\ndescription: Helps\n---\nHelp people.\n" {
		t.Fatalf("got %q", got)
	}
}

func TestSetTreatsEmptyFormValuesAsAbsent(t *testing.T) {
	d, _ := Parse("a.md", []byte(richFile))
	for key, v := range map[string]any{"model": "", "tools.deny": []string{"filesystem.write_file"}, "subagents.deny": []string{}, "timeout": nil} {
		if err := d.Set(key, v); err != nil {
			t.Fatal(err)
		}
	}
	if got := string(d.Bytes()); got != richFile {
		t.Fatalf("got:\n%s", got)
	}
}

func TestSetWritesDurationsItUnderstands(t *testing.T) {
	d, _ := Parse("a.md", []byte("---\nname: a\ndescription: A\ntimeout: 2m\n---\n"))
	if err := d.Set("timeout", 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	if got := string(d.Bytes()); got != "---\nname: a\ndescription: A\ntimeout: 2m\n---\n" {
		t.Fatalf("an equal duration changed the file: %q", got)
	}
	if err := d.Set("timeout", 90*time.Second); err != nil {
		t.Fatal(err)
	}
	a, probs := d.Agent()
	if a.Timeout != 90*time.Second || len(probs) != 0 {
		t.Fatalf("timeout = %v, problems %v", a.Timeout, probs)
	}
}

func TestSetRefusesToDescendIntoAScalar(t *testing.T) {
	d, _ := Parse("a.md", []byte("---\nname: a\ndescription: A\nretry: 3\n---\n"))
	if err := d.Set("retry.backoff", "constant"); err == nil {
		t.Fatal("set into a scalar succeeded")
	}
	if got := string(d.Bytes()); got != "---\nname: a\ndescription: A\nretry: 3\n---\n" {
		t.Fatalf("a failed set changed the file: %q", got)
	}
}

func TestSetKeepsTheSpacingOfUntouchedLinesInTheEditedEntry(t *testing.T) {
	src := "---\nname: a\ndescription: A\nsubagents:\n  allow: [b,  c]       # aligned\n  deny: [d]            # comments\n  max_concurrent: 3\n---\n"
	d, _ := Parse("a.md", []byte(src))
	if err := d.Set("subagents.max_concurrent", 2); err != nil {
		t.Fatal(err)
	}
	want := "---\nname: a\ndescription: A\nsubagents:\n  allow: [b,  c]       # aligned\n  deny: [d]            # comments\n  max_concurrent: 2\n---\n"
	if got := string(d.Bytes()); got != want {
		t.Fatalf("got %q", got)
	}
}

func TestSetMaxTurnsKeepsClaudeCodesSpelling(t *testing.T) {
	in := "---\nname: a\ndescription: A\nmaxTurns: 5\n---\nbody\n"
	d, err := Parse("a.md", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Set("max_turns", 5); err != nil {
		t.Fatal(err)
	}
	if got := string(d.Bytes()); got != in {
		t.Errorf("an unchanged value rewrote the file:\n%s", got)
	}
	if err := d.Set("max_turns", 7); err != nil {
		t.Fatal(err)
	}
	want := "---\nname: a\ndescription: A\nmaxTurns: 7\n---\nbody\n"
	if got := string(d.Bytes()); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if a, ps := d.Agent(); a.MaxTurns != 7 || len(ps) != 0 {
		t.Errorf("max turns %d, problems %v", a.MaxTurns, ps)
	}
}

// A Claude Code description with an unquoted ": " is read through a quoted
// copy (repairYAML); a new value is written as the file would have it, not
// in that copy's quotes.
func TestSetOnARepairedLineWritesTheNewValueUnquoted(t *testing.T) {
	d, err := Parse("a.md", []byte("---\nname: a\ndescription: Reviews code: finds bugs\ntools: Read, Grep\n---\nBody\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Set("description", "Reviews code and finds bugs"); err != nil {
		t.Fatal(err)
	}
	want := "---\nname: a\ndescription: Reviews code and finds bugs\ntools: Read, Grep\n---\nBody\n"
	if got := string(d.Bytes()); got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	// A value that needs quotes still gets them.
	if err := d.Set("description", "Reviews: code"); err != nil {
		t.Fatal(err)
	}
	if a, _ := d.Agent(); a.Description != "Reviews: code" {
		t.Fatalf("description reads %q after the second edit:\n%s", a.Description, d.Bytes())
	}
}
