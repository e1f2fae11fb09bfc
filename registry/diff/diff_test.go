package diff

import (
	"slices"
	"testing"
)

func TestDiffSummarySaysWhatChanged(t *testing.T) {
	base := "---\nname: lead\ndescription: Leads\ntools: [web]\n---\nYou lead.\nBe brief.\n"
	cases := []struct {
		name          string
		file          string
		before, after string
		nilBefore     bool
		nilAfter      bool
		want          string
	}{
		{name: "a new file is created with its line count", file: "lead.md", nilBefore: true, after: base, want: "created (7 lines)"},
		{name: "a deleted file is deleted", file: "lead.md", before: base, nilAfter: true, want: "deleted"},
		{name: "the same bytes are no change", file: "lead.md", before: base, after: base, want: "no change"},
		{name: "a changed key is named and the body is untouched",
			file: "lead.md", before: base, after: "---\nname: lead\ndescription: Leads well\ntools: [web]\n---\nYou lead.\nBe brief.\n",
			want: "description changed"},
		{name: "keys added and removed are named, body lines counted",
			file: "lead.md", before: base, after: "---\nname: lead\ndescription: Leads\nmodel: demo\n---\nYou lead.\nBe thorough.\nCite sources.\n",
			want: "added model, removed tools; body +2 −1"},
		{name: "a comment moved in the frontmatter is a frontmatter line change",
			file: "lead.md", before: base, after: "---\n# mine\nname: lead\ndescription: Leads\ntools: [web]\n---\nYou lead.\nBe brief.\n",
			want: "frontmatter +1 −0"},
		{name: "a workflow names its top-level keys",
			file: "flow.yaml", before: "name: f\nsteps: [a]\n", after: "name: f\nsteps: [a, b]\n", want: "steps changed"},
		{name: "a workflow whose YAML breaks counts lines",
			file: "flow.yaml", before: "name: f\n", after: "name: [f\n", want: "+1 −1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before, after := []byte(c.before), []byte(c.after)
			if c.nilBefore {
				before = nil
			}
			if c.nilAfter {
				after = nil
			}
			if got := Summary(c.file, before, after); got != c.want {
				t.Errorf("Summary = %q, want %q", got, c.want)
			}
		})
	}
}

func TestLineDiffGroupsLinesByOperation(t *testing.T) {
	got := Lines("a\nb\nc\n", "a\nB\nc\nd\n")
	want := []Chunk{
		{Equal, []string{"a"}},
		{Delete, []string{"b"}},
		{Insert, []string{"B"}},
		{Equal, []string{"c"}},
		{Insert, []string{"d"}},
	}
	if len(got) != len(want) {
		t.Fatalf("Lines = %v, want %v", got, want)
	}
	for i := range want {
		if got[i].Op != want[i].Op || !slices.Equal(got[i].Lines, want[i].Lines) {
			t.Errorf("chunk %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestSectionsSplitAgentFilesOnly(t *testing.T) {
	fm, body := Sections("a.md", []byte("---\nname: a\n---\nhello\n"))
	if fm != "name: a\n" || body != "hello\n" {
		t.Errorf("agent file: frontmatter %q body %q", fm, body)
	}
	fm, body = Sections("w.yaml", []byte("name: w\n"))
	if fm != "" || body != "name: w\n" {
		t.Errorf("workflow: frontmatter %q body %q", fm, body)
	}
}
