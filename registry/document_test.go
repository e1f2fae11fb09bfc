package registry

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
)

func TestParseRoundTripsEveryExampleAgent(t *testing.T) {
	fsys := os.DirFS("../agents")
	paths, err := agentPaths(fsys)
	if err != nil {
		t.Fatalf("list ../agents: %v", err)
	}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				t.Fatal(err)
			}
			d, err := Parse(p, data)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if got := string(d.Bytes()); got != string(data) {
				t.Fatalf("round trip changed the file:\n%s", got)
			}
			resubmitEveryField(t, d)
			if got := string(d.Bytes()); got != string(data) {
				t.Fatalf("re-submitting every field changed the file:\n%s", got)
			}
		})
	}
}

// resubmitEveryField does what an editor form does on save: it sets every
// field to the value it shows.
func resubmitEveryField(t *testing.T, d *Document) {
	t.Helper()
	for _, key := range []string{"name", "description", "model", "tools.allow", "tools.deny", "subagents.allow", "subagents.deny",
		"subagents.execution", "subagents.max_concurrent", "subagents.context", "subagents.nested", "max_turns", "timeout",
		"retry.max_attempts", "retry.backoff", "enabled"} {
		v, _ := d.Get(key)
		if err := d.Set(key, v); err != nil {
			t.Fatalf("set %s to its own value %v: %v", key, v, err)
		}
	}
	d.SetBody(d.Body())
}

var trickyFiles = []struct{ name, text string }{
	{"CRLF line endings", "---\r\nname: crlf\r\ndescription: Uses CRLF\r\ntools: Read, Grep\r\n---\r\nBody line one.\r\nLine two.\r\n"},
	{"no trailing newline", "---\nname: bare\ndescription: No newline at the end\n---\nlast line"},
	{"a body that starts with a --- rule", "---\nname: rule\ndescription: Body opens with a rule\n---\n---\n\nAfter the rule.\n"},
	{"unicode everywhere", "---\nname: unicode\ndescription: \"Résumé 🤖 — 日本語\"\n---\nПривет, мир! ✓\n"},
	{"an empty body", "---\nname: empty-body\ndescription: Nothing below\n---\n"},
	{"a closing delimiter at the very end", "---\nname: closing\ndescription: Ends on the delimiter\n---"},
	{"no frontmatter at all", "Just a prompt.\n"},
	{"an empty frontmatter", "---\n---\nBody.\n"},
	{"a byte order mark", "\ufeff---\nname: bom\ndescription: Has a BOM\n---\nBody\n"},
	{"comments, blank lines and unknown keys", "---\n# Who\nname: commented   # unique\n\ndescription: >\n  Folded text\n  over lines\ncolor: purple\nx-custom: {a: 1}\n---\nBody\n"},
}

func TestParseRoundTripsTrickyFiles(t *testing.T) {
	for _, tc := range trickyFiles {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse("agent.md", []byte(tc.text))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if got := string(d.Bytes()); got != tc.text {
				t.Fatalf("round trip:\n got %q\nwant %q", got, tc.text)
			}
			resubmitEveryField(t, d)
			if got := string(d.Bytes()); got != tc.text {
				t.Fatalf("after re-submitting every field:\n got %q\nwant %q", got, tc.text)
			}
		})
	}
}

func TestParseFindsTheBodyAfterTheFrontmatter(t *testing.T) {
	d, err := Parse("rule.md", []byte(trickyFiles[2].text))
	if err != nil {
		t.Fatal(err)
	}
	if d.Body() != "---\n\nAfter the rule.\n" {
		t.Fatalf("body = %q", d.Body())
	}
	a, _ := d.Agent()
	if a.Prompt != "---\n\nAfter the rule." {
		t.Fatalf("prompt = %q", a.Prompt)
	}
}

func TestParseRejectsUnreadableFiles(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		wantLine int
		wantMsg  string
	}{
		{"an opening --- that is never closed", "---\nname: open\ndescription: x\n", 1, "never closed"},
		{"broken YAML reports the file line", "---\nname: ok\ndescription: [unclosed\nmodel: x\n---\n", 3, "invalid YAML"},
		{"a flow list left open is broken, not plain text", "---\nname: ok\ntools: [Read, Grep] [x\n---\n", 3, "invalid YAML"},
		{"a tab-indented mapping", "---\nname: ok\ntools:\n\t- Read\n---\n", 4, "invalid YAML"},
		{"frontmatter that is a list", "---\n- a\n- b\n---\n", 2, "must be a mapping"},
		{"bytes that are not UTF-8", "---\nname: ok\ndescription: \xff\xfe\n---\n", 3, "not valid UTF-8"},
		{"a file over 1 MiB", "---\nname: big\n---\n" + strings.Repeat("x", MaxFileSize), 0, "1 MiB"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("bad.md", []byte(tc.text))
			var p Problem
			if !errors.As(err, &p) {
				t.Fatalf("err = %v, want a Problem", err)
			}
			if p.File != "bad.md" || p.Line != tc.wantLine || p.Severity != SeverityError || !strings.Contains(p.Message, tc.wantMsg) {
				t.Fatalf("problem = %+v, want line %d and %q", p, tc.wantLine, tc.wantMsg)
			}
		})
	}
}

func TestSetBodyKeepsTheFilesLineEndings(t *testing.T) {
	d, err := Parse("a.md", []byte(trickyFiles[0].text))
	if err != nil {
		t.Fatal(err)
	}
	d.SetBody("New body\nsecond line\n")
	want := "---\r\nname: crlf\r\ndescription: Uses CRLF\r\ntools: Read, Grep\r\n---\r\nNew body\r\nsecond line\r\n"
	if got := string(d.Bytes()); got != want {
		t.Fatalf("got %q", got)
	}
}

func TestSetBodyAfterAClosingDelimiterWithoutNewline(t *testing.T) {
	d, _ := Parse("a.md", []byte(trickyFiles[5].text))
	d.SetBody("Hello\n")
	want := "---\nname: closing\ndescription: Ends on the delimiter\n---\nHello\n"
	if got := string(d.Bytes()); got != want {
		t.Fatalf("got %q", got)
	}
}

func TestHashIsTheSHA256OfTheContent(t *testing.T) {
	if got := Hash([]byte("abc")); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("Hash(abc) = %s", got)
	}
}
