package skills

import (
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/agentry/agentry/registry"
)

// skillFolders are the Agent Skills spec's subfolders; a word in code that
// starts with one of them is taken for a path in the skill's folder.
var skillFolders = []string{"scripts/", "references/", "assets/"}

// refsParser is goldmark's CommonMark parser without its emphasis parser,
// which took over a third of the time of parsing a marketplace's skills: the
// check reads only links, images, code spans and code blocks, and in
// CommonMark those bind more tightly than emphasis, so they come out the
// same without it. Safe for concurrent use, like every goldmark parser.
var refsParser = parser.NewParser(
	parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	parser.WithInlineParsers(
		util.Prioritized(parser.NewCodeSpanParser(), 100),
		util.Prioritized(parser.NewLinkParser(), 200),
		util.Prioritized(parser.NewAutoLinkParser(), 300),
		util.Prioritized(parser.NewRawHTMLParser(), 400),
	),
	parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
)

// references warns about the files the body names that the skill's folder
// does not have: the targets of relative links and images, and words in
// code that start with scripts/, references/ or assets/ ("run
// `python scripts/fill.py`"). The body is parsed by goldmark, so a link
// inside a code block is not taken for a link, and each warning names the
// line of the file.
func (dc *skillDecoder) references(body string) {
	have := map[string]bool{}
	dirs := map[string]bool{}
	for _, f := range dc.s.Files {
		have[f.Path] = true
		for d := path.Dir(f.Path); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	src := []byte(body)
	first := dc.BodyLine()
	lineOf := func(offset int) int { return first + strings.Count(body[:min(offset, len(body))], "\n") }
	reported := map[string]bool{}
	check := func(target string, offset int, what string) {
		p := path.Clean(target)
		if p == "." || strings.HasPrefix(p, "../") || p == ".." || reported[p] || have[p] || dirs[p] || p == FileName {
			return
		}
		reported[p] = true
		dc.Add(registry.SeverityWarning, lineOf(offset), "body", fmt.Sprintf("%s %q: the skill's folder has no such file", what, target))
	}
	doc := refsParser.Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			if t, ok := localTarget(string(n.Destination)); ok {
				check(t, nodeOffset(n, src), "link to")
			}
		case *ast.Image:
			if t, ok := localTarget(string(n.Destination)); ok {
				check(t, nodeOffset(n, src), "image")
			}
		case *ast.CodeSpan:
			seg := codeSpanText(n, src)
			for _, w := range folderWords(seg.text) {
				check(w, seg.offset, "code names")
			}
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			lines := n.Lines()
			for i := range lines.Len() {
				s := lines.At(i)
				for _, w := range folderWords(string(s.Value(src))) {
					check(w, s.Start, "code names")
				}
			}
		}
		return ast.WalkContinue, nil
	})
}

// localTarget returns a link destination that names a file of the skill's
// folder: no scheme, not absolute, not only an anchor; the anchor and
// query are dropped and escapes decoded.
func localTarget(dest string) (string, bool) {
	if dest == "" || strings.HasPrefix(dest, "#") || strings.HasPrefix(dest, "/") || strings.Contains(dest, "{") {
		return "", false
	}
	u, err := url.Parse(dest)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Path == "" {
		return "", false
	}
	return strings.TrimPrefix(u.Path, "./"), true
}

// folderWords returns the words of code text that start with one of the
// spec's folders, with quotes and trailing punctuation dropped; words with
// placeholders or globs ("scripts/<name>.py", "references/*.md") are left
// out, since they name no one file.
func folderWords(code string) []string {
	if !mentionsFolder(code) { // most code names none: skip splitting it into words
		return nil
	}
	var out []string
	for _, w := range strings.FieldsFunc(code, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '=' || r == '(' || r == ')' || r == ','
	}) {
		w = strings.Trim(w, "\"'`;:.")
		w = strings.TrimPrefix(w, "./")
		if strings.ContainsAny(w, "<>{}*?$[]|") {
			continue
		}
		for _, f := range skillFolders {
			if strings.HasPrefix(w, f) && len(w) > len(f) {
				out = append(out, w)
				break
			}
		}
	}
	return out
}

func mentionsFolder(code string) bool {
	for _, f := range skillFolders {
		if strings.Contains(code, f) {
			return true
		}
	}
	return false
}

// segment is a code span's text and where it starts in the body.
type segment struct {
	text   string
	offset int
}

func codeSpanText(n *ast.CodeSpan, src []byte) segment {
	var b strings.Builder
	off := -1
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			if off < 0 {
				off = t.Segment.Start
			}
			b.Write(t.Segment.Value(src))
		}
	}
	return segment{b.String(), max(off, 0)}
}

// nodeOffset is where an inline node's first text starts in the body, for
// its line; a node without text is placed at its parent block's start.
func nodeOffset(n ast.Node, src []byte) int {
	for c := n.FirstChild(); c != nil; c = c.FirstChild() {
		if t, ok := c.(*ast.Text); ok {
			return t.Segment.Start
		}
	}
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Type() == ast.TypeBlock && p.Lines().Len() > 0 {
			return p.Lines().At(0).Start
		}
	}
	return 0
}
