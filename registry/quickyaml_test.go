package registry

import (
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// quickCases are frontmatter texts near the edges of quickYAML's subset.
var quickCases = []string{
	"name: a\n",
	"name: a",
	"name: agent-00001\ndescription: Agent number 1 answers questions about topic 1 and hands sub-tasks to two colleagues.\nmodel: sonnet\ntools:\n  allow: [web.fetch, filesystem.read_file, filesystem.grep]\n  deny: [filesystem.write_file]\nsubagents:\n  allow: [agent-00002, general-purpose]\n  execution: parallel\n  max_concurrent: 3\nmax_turns: 8\ntimeout: 2m\ncolor: blue\n",
	"tools:\n- Read\n- Write\nmodel: opus\n",
	"tools:\n  - Read\n  - Write\n",
	"a:\n  b:\n    c: d\n  e: f\ng: h\n",
	"a:\n  b: c\n   d: e\n",
	"a: b\n  c\n",
	"a: []\n",
	"a: [x]\nb: [x,y]\nc: [ x ]\nd: [x, y\n",
	"a: [true, x]\nb: [1, x]\nc: [x.]\nd: [a/b, c-d, e_f]\n",
	"a: true\n", "a: True\n", "a: null\n", "a: ~\n", "a: yes\n", "a: no\n", "a: on\n", "a: y\n",
	"true: a\n", "null: a\n", "on: a\n", "y: b\n", "Yes: b\n",
	"a: 0\n", "a: 00\n", "a: 007\n", "a: 8\n", "a: -8\n", "a: +8\n", "a: 1_000\n", "a: 123456789012345678\n",
	"a: 1234567890123456789\n", "a: 99999999999999999999\n", "a: 1.5\n", "a: 1e3\n", "a: 0x1f\n",
	"a: 2m\n", "a: 30s\n", "a: 10ms\n", "a: 2h\n", "a: 3d\n", "a: 2mm\n", "a: 2 m\n", "a: 2001-12-14\n",
	"a: .5\n", "a: .inf\n", "a: -x\n", "a: x-\n", "a: /usr/bin\n", "a: _x\n", "a: (x)\n",
	"a: b: c\n", "a: b:c\n", "a: b:\n", "a: http://x.y/z?q=1\n", "a: it's fine\n", "a: say \"hi\"\n",
	"a: x [y] {z}, w\n", "a: 'q'\n", "a: \"q\"\n", "a: |\n  x\n", "a: >\n  x\n", "a: &x y\nb: *x\n",
	"a: !!str 1\n", "a: x # c\n", "# c\na: x\n", "a: x\n\nb: y\n", "a:  x\n", "a: x \n", "a:\tx\n",
	"a: x\r\n", "a:\n", "a:\nb: c\n", "a: x\n...\n", "a: x\n---\nb: y\n", "- a\n- b\n", "x\n", "a\n",
	" a: x\n", "a: café\n", "a: 日本語のテキスト\n", "a: emoji 🙂 ok\n", "a: x\u0085y\n", "a: x\u2028y\n",
	"a: x\ufeffy\n", "a: x\u00a0\n", "a-b: x\n", "a.b: x\n", "_a: x\n", "A1: x\n", "a: %x\n", "a: @x\n",
	"a: `x`\n", "a: x\n  - y\n", "a:\n- x\n  - y\n", "a:\n  - x\n  b: y\n", "a:\n  - x: y\n", "a:\n  -\n",
	"a:\n  - [x]\n", "a:\n  -x\n", "a:\n- x\n- y\nb:\n- z\n", "a: b\na: c\n", "<<: x\n", "a: <<\n",
	"a:\n  b: 1\n  c:\n  - x\n  d: [y]\n",
}

// TestQuickYAMLMatchesYAMLv3 checks that quickYAML builds exactly yaml.v3's
// tree whenever it answers, and that it answers for the plain shapes.
func TestQuickYAMLMatchesYAMLv3(t *testing.T) {
	for _, in := range quickCases {
		checkQuick(t, in)
	}
	for _, in := range []string{quickCases[2], "tools:\n- Read\n- Write\nmodel: opus\n", "a:\n  b:\n    c: d\n  e: f\ng: h\n", "a: 2m\n", "a: 8\n", "a: café\n"} {
		if quickYAML(in) == nil {
			t.Errorf("quickYAML(%q) fell back to yaml.v3; the subset takes it", in)
		}
	}
}

// TestQuickYAMLOnTheCorpus compares both decoders on every corpus file's
// frontmatter.
func TestQuickYAMLOnTheCorpus(t *testing.T) {
	fsys := os.DirFS(corpusDir())
	taken := 0
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		parts := strings.SplitN(string(data), "---\n", 3)
		if len(parts) == 3 && parts[0] == "" {
			if checkQuick(t, parts[1]) {
				taken++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("quickYAML took %d corpus files", taken)
}

// FuzzQuickYAML compares the decoders on arbitrary text.
func FuzzQuickYAML(f *testing.F) {
	for _, in := range quickCases {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) { checkQuick(t, in) })
}

// checkQuick fails when quickYAML answers differently from yaml.v3, and
// reports whether it answered.
func checkQuick(t *testing.T, in string) bool {
	t.Helper()
	q := quickYAML(in)
	if q == nil {
		return false
	}
	var want yaml.Node
	if err := yaml.Unmarshal([]byte(in), &want); err != nil {
		t.Errorf("quickYAML(%q) decoded what yaml.v3 rejects: %v", in, err)
		return true
	}
	if !reflect.DeepEqual(q, &want) {
		t.Errorf("quickYAML(%q) differs from yaml.v3:\n got %s\nwant %s", in, dumpNode(q), dumpNode(&want))
	}
	return true
}

// dumpNode prints a tree one node a line, without pointers.
func dumpNode(n *yaml.Node) string {
	var b strings.Builder
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		c := *n
		c.Content = nil
		fmt.Fprintf(&b, "%s%+v\n", strings.Repeat("  ", depth), c)
		for _, k := range n.Content {
			walk(k, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}
