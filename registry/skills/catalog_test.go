package skills

import (
	"io"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentry/agentry/registry"
)

func skillMD(name, desc string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: " + desc + "\n---\nBody of " + name + ". See [forms](references/forms.md).\n")}
}

// libraryOf loads roots (label → files) of the given kinds into a new
// catalog, in order.
func libraryOf(t *testing.T, roots ...struct {
	root Root
	fsys fstest.MapFS
}) (*Catalog, []*RootContents) {
	t.Helper()
	c := NewCatalog()
	var rcs []*RootContents
	for _, r := range roots {
		rc := c.Add(r.root)
		if err := rc.Load(r.fsys); err != nil {
			t.Fatal(err)
		}
		rcs = append(rcs, rc)
	}
	return c, rcs
}

type rootFS = struct {
	root Root
	fsys fstest.MapFS
}

func TestCatalogPrefixesPluginItemsOnlyWhereNamesCollide(t *testing.T) {
	c, _ := libraryOf(t,
		rootFS{Root{Label: "skills", Kind: RootSkills, Dir: "/p/skills"}, fstest.MapFS{
			"pdf/SKILL.md":            skillMD("pdf", "local pdf"),
			"pdf/references/forms.md": {Data: []byte("forms")},
		}},
		rootFS{Root{Label: ".claude/commands", Kind: RootCommands, Dir: "/p/.claude/commands"}, fstest.MapFS{
			"review.md": {Data: []byte("Review $ARGUMENTS")},
		}},
		rootFS{Root{Label: ".agentry/plugins", Kind: RootPlugins, Dir: "/p/.agentry/plugins"}, fstest.MapFS{
			"docs/skills/pdf/SKILL.md":             skillMD("pdf", "plugin pdf"),
			"docs/skills/pdf/references/forms.md":  {Data: []byte("forms")},
			"docs/skills/xlsx/SKILL.md":            skillMD("xlsx", "sheets"),
			"docs/skills/xlsx/references/forms.md": {Data: []byte("forms")},
			"docs/commands/review.md":              {Data: []byte("---\ndescription: docs review\n---\nReview docs")},
			"git/commands/review.md":               {Data: []byte("Review git")},
			"git/commands/commit.md":               {Data: []byte("Commit")},
			"docs/agents/writer.md":                {Data: []byte("---\nname: writer\ndescription: w\n---\nx")},
		}},
	)
	l := c.Snapshot()
	var ids []string
	for _, s := range l.Skills() {
		ids = append(ids, s.ID+"@"+s.Root)
	}
	if got, want := strings.Join(ids, " "), "docs.pdf@.agentry/plugins pdf@skills xlsx@.agentry/plugins"; got != want {
		t.Errorf("skills %s; want %s", got, want)
	}
	ids = nil
	for _, cm := range l.Commands() {
		ids = append(ids, cm.ID)
	}
	if got, want := strings.Join(ids, " "), "commit docs.review git.review review"; got != want {
		t.Errorf("commands %s; want %s", got, want)
	}
	s, ok := l.Skill("docs:pdf") // Claude Code's spelling
	if !ok || s.Plugin != "docs" || s.Description != "plugin pdf" || s.Path != "/p/.agentry/plugins/docs/skills/pdf" {
		t.Fatalf("docs:pdf: %+v %v", s, ok)
	}
	if len(l.Problems()) != 0 {
		t.Errorf("problems: %v", l.Problems())
	}
	f, err := l.Open("docs.pdf", "references/forms.md")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(f)
	f.Close()
	if string(data) != "forms" {
		t.Errorf("read %q", data)
	}
	if _, err := l.Open("docs.pdf", "../xlsx/SKILL.md"); err == nil {
		t.Error("Open left the skill's folder")
	}
}

func TestCatalogServesTheFirstRootOfTwoWithOneSkill(t *testing.T) {
	c, _ := libraryOf(t,
		rootFS{Root{Label: "skills", Kind: RootSkills}, fstest.MapFS{"a/SKILL.md": skillMD("a", "first"), "a/references/forms.md": {}}},
		rootFS{Root{Label: ".claude/skills", Kind: RootSkills}, fstest.MapFS{"a/SKILL.md": skillMD("a", "second"), "a/references/forms.md": {}}},
	)
	l := c.Snapshot()
	if s, _ := l.Skill("a"); s.Description != "first" {
		t.Errorf("served %q; want the first root's", s.Description)
	}
	f, _ := l.File(".claude/skills/a/SKILL.md")
	if len(f.Problems) != 1 || f.Problems[0].Severity != registry.SeverityError || !strings.Contains(f.Problems[0].Message, "already served by skills/a/SKILL.md") {
		t.Errorf("second file's problems: %v", f.Problems)
	}
}

func TestCatalogKeepsABrokenSkillsLastGoodVersionAndFollowsItsFiles(t *testing.T) {
	c, rcs := libraryOf(t, rootFS{Root{Label: "skills", Kind: RootSkills}, fstest.MapFS{"a/SKILL.md": skillMD("a", "good")}})
	rc := rcs[0]
	f, _ := c.Snapshot().File("skills/a/SKILL.md")
	if len(f.Problems) != 1 || !strings.Contains(f.Problems[0].Message, `"references/forms.md"`) {
		t.Fatalf("a missing reference: %v", f.Problems)
	}
	rc.Apply([]registry.Change{{Path: "a/references/forms.md", Data: []byte("x")}})
	if f, _ := c.Snapshot().File("skills/a/SKILL.md"); len(f.Problems) != 0 {
		t.Errorf("the reference now exists: %v", f.Problems)
	}
	if s, _ := c.Snapshot().Skill("a"); len(s.Files) != 1 || s.Files[0].Path != "references/forms.md" {
		t.Errorf("files %v", s.Files)
	}
	rc.Apply([]registry.Change{{Path: "a/SKILL.md", Data: []byte("---\nname: a\n---\nno description")}})
	l := c.Snapshot()
	f, _ = l.File("skills/a/SKILL.md")
	if s, ok := l.Skill("a"); !ok || s.Description != "good" || !f.Stale {
		t.Errorf("broken skill: served %+v, stale %v", s, f.Stale)
	}
	rc.Apply([]registry.Change{{Path: "a/SKILL.md", Deleted: true}, {Path: "a/references/forms.md", Deleted: true}})
	if _, ok := c.Snapshot().Skill("a"); ok || len(rc.Paths()) != 0 {
		t.Errorf("a deleted skill is still there: %v", rc.Paths())
	}
}

func TestCatalogRootsKnowTheirFiles(t *testing.T) {
	c := NewCatalog()
	skills := c.Add(Root{Label: "skills", Kind: RootSkills})
	plugins := c.Add(Root{Label: "plugins", Kind: RootPlugins})
	for _, tc := range []struct {
		rc   *RootContents
		rel  string
		file bool
	}{
		{skills, "pdf/SKILL.md", true},
		{skills, "pdf/scripts/fill.py", true},
		{skills, "README.md", false},
		{skills, "pdf/.SKILL.md.tmp", false},
		{plugins, "docs/skills/pdf/SKILL.md", true},
		{plugins, "docs/commands/review.md", true},
		{plugins, "docs/commands/sub/review.md", true},
		{plugins, "docs/agents/writer.md", false},
		{plugins, "docs/README.md", false},
	} {
		if got := tc.rc.IsFile(tc.rel); got != tc.file {
			t.Errorf("%s IsFile(%q) = %v", tc.rc.Name(), tc.rel, got)
		}
	}
	if plugins.IsFolder("docs/agents") || !plugins.IsFolder("docs/skills/pdf/scripts") || plugins.IsFolder("docs/.git") {
		t.Error("plugins root watches the wrong folders")
	}
	var _ fs.FS = fstest.MapFS{}
}

// fstestMap is a MapFS of path, content pairs.
func fstestMap(kv ...string) fstest.MapFS {
	m := fstest.MapFS{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = &fstest.MapFile{Data: []byte(kv[i+1])}
	}
	return m
}

// Claude Code puts a plugin's folder in for ${CLAUDE_PLUGIN_ROOT} in its
// commands, prompt and allowed-tools alike, so the command may run the
// script it ships; a project's own command has no plugin folder.
func TestAPluginCommandNamesItsPluginsFolder(t *testing.T) {
	text := "---\nallowed-tools: [\"Bash(${CLAUDE_PLUGIN_ROOT}/scripts/setup.sh:*)\"]\n---\nRun \"${CLAUDE_PLUGIN_ROOT}/scripts/setup.sh\" $ARGUMENTS\n"
	c, _ := libraryOf(t,
		rootFS{Root{Label: ".claude/commands", Kind: RootCommands, Dir: "/p/.claude/commands"}, fstest.MapFS{
			"own.md": {Data: []byte(text)},
		}},
		rootFS{Root{Label: ".agentry/plugins", Kind: RootPlugins, Dir: "/p/.agentry/plugins"}, fstest.MapFS{
			"ralph/commands/loop.md": {Data: []byte(text)},
		}},
	)
	l := c.Snapshot()
	loop, ok := l.Command("loop")
	if !ok {
		t.Fatalf("commands %v", l.Commands())
	}
	if want := []string{"shell.run(/p/.agentry/plugins/ralph/scripts/setup.sh *)"}; !slices.Equal(loop.AllowedTools, want) ||
		!strings.Contains(loop.Prompt, `Run "/p/.agentry/plugins/ralph/scripts/setup.sh" $ARGUMENTS`) {
		t.Errorf("plugin command: tools %q prompt %q", loop.AllowedTools, loop.Prompt)
	}
	own, _ := l.Command("own")
	if !strings.Contains(own.Prompt, "${CLAUDE_PLUGIN_ROOT}") {
		t.Errorf("a project's command changed: %q", own.Prompt)
	}
}
