package registry

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/adrg/frontmatter"
	"go.yaml.in/yaml/v3"
)

// MaxFileSize is the largest agent file accepted (1 MiB); bigger files are
// almost certainly not agents and would cost memory in every snapshot.
const MaxFileSize = 1 << 20

const bom = "\ufeff"

// Document is one agent file split into its parts, so it can be edited
// without losing a byte: the opening delimiter, the frontmatter text, the
// closing delimiter and the body are kept as they were read, and an edit
// rewrites only the frontmatter lines of the entry it changes.
//
// A Document is not safe for concurrent use; Snapshot.Document hands out
// a fresh copy per call.
type Document struct {
	file   string
	known  []string // tools known where it came from (tool-list edits); nil: BuiltinTools
	hasFM  bool
	crlf   bool
	open   string     // "---\n", "---\r\n", maybe with a BOM before it
	fm     string     // frontmatter text between the delimiters
	close  string     // closing delimiter line with its line break (if any)
	body   string     // everything after the closing delimiter
	root   *yaml.Node // the frontmatter mapping; nil when empty
	indent int        // indentation detected in the frontmatter
	// repaired lists the keys whose frontmatter lines (1-based) were
	// strictly invalid YAML and were read leniently; see lenient.go.
	repaired []repair
}

// Parse splits an agent file into frontmatter and body. The error, a
// Problem with file, line and reason, is for files that cannot be read at
// all: over MaxFileSize, not UTF-8, an opening --- never closed, broken YAML
// or frontmatter that is not a mapping. A file without frontmatter parses
// (its whole content is the body).
func Parse(file string, data []byte) (*Document, error) {
	return parseText(file, string(data))
}

// parseText is Parse on a string; the Document's parts are substrings of
// text, so a snapshot holds each file's text once.
func parseText(file, text string) (*Document, error) {
	if len(text) > MaxFileSize {
		// ReadLimited stops one byte past the limit, so that length says
		// only "too big", not how big.
		return nil, fileProblem(file, 0, "", fmt.Sprintf("file is larger than the %d-byte (1 MiB) limit", MaxFileSize))
	}
	if !utf8.ValidString(text) {
		return nil, fileProblem(file, badUTF8Line(text), "", "file is not valid UTF-8")
	}
	return parseString(file, text)
}

// fmFormat is YAML frontmatter between two --- lines, as adrg/frontmatter
// finds it. Its unmarshal only notes where the frontmatter is: parseString
// decodes it (decodeYAML) from the file's own text, so the decoded values
// can be substrings of the text the snapshot keeps anyway. It never fails,
// so the library still returns the body, whose length gives the
// frontmatter's byte extent.
var fmFormat = frontmatter.NewFormat("---", "---", func(data []byte, v any) error {
	c := v.(*fmCapture)
	c.found, c.size = true, len(data)
	return nil
})

// fmCapture is what fmFormat's unmarshal saw.
type fmCapture struct {
	found bool
	size  int // bytes between the delimiter lines
}

// fmInput feeds the library a file and stops at the first read after the
// frontmatter was decoded: the library would otherwise copy the whole body
// (most of a typical agent file) only for Document to slice it from the
// text it already holds. read counts the bytes handed out, from which the
// body's start follows.
type fmInput struct {
	r    strings.Reader
	c    *fmCapture
	read int
}

func (in *fmInput) Read(p []byte) (int, error) {
	if in.c.found {
		return 0, io.EOF
	}
	n, err := in.r.Read(p)
	in.read += n
	return n, err
}

// readers reuses the library's line reader: it accepts a *bufio.Reader as
// it is, and a fresh 4 KiB buffer per file was an eighth of what loading a
// folder allocated. Issue 25 tried the plain strings.Reader: with it,
// BenchmarkLoad10k allocated 229 MB instead of 187 and took 1.31x main's
// CPU instead of 1.11x, so the pool and fmInput stay.
var readers = sync.Pool{New: func() any { return bufio.NewReader(nil) }}

// splitFrontmatter runs the library over text. It returns the capture and
// the offset where the body starts (0 when no frontmatter was found).
func splitFrontmatter(text string) (fmCapture, int, error) {
	var c fmCapture
	in := &fmInput{c: &c}
	in.r.Reset(text)
	br := readers.Get().(*bufio.Reader)
	br.Reset(in)
	rest, err := frontmatter.Parse(br, &c, fmFormat)
	br.Reset(nil)
	readers.Put(br)
	if err != nil || !c.found {
		return c, 0, err
	}
	return c, in.read - len(rest), nil
}

// decodeYAML decodes frontmatter into a yaml.v3 Node, which keeps key
// order, comments, unknown keys and lines (the library's own YAML format
// decodes with yaml.v2 into Go values and keeps none of them); through
// quickYAML when the text is plain.
func decodeYAML(text string) (*yaml.Node, error) {
	if n := quickYAML(text); n != nil {
		return n, nil
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(text), &n); err != nil {
		return nil, err
	}
	return &n, nil
}

// parseString is Parse after the size and encoding checks.
func parseString(file, s string) (*Document, error) {
	d := &Document{file: file, indent: 2}
	text, prefix := s, ""
	if strings.HasPrefix(text, bom) {
		text, prefix = text[len(bom):], bom // the library would not see a --- behind a BOM
	}
	c, end, err := splitFrontmatter(text)
	if err != nil {
		return nil, fileProblem(file, 1, "", "cannot split frontmatter: "+err.Error())
	}
	if !c.found {
		if line, ok := unclosedOpening(text); ok {
			return nil, fileProblem(file, line, "", fmt.Sprintf("the opening --- on line %d is never closed by a --- line", line))
		}
		d.body = s
		d.crlf = strings.Contains(s, "\r\n")
		return d, nil
	}
	// The body is what follows the closing line; the closing line ends just
	// before it, and the frontmatter text just before that.
	closeStart := strings.LastIndexByte(strings.TrimSuffix(text[:end], "\n"), '\n') + 1
	start := closeStart - c.size
	d.hasFM = true
	d.open, d.fm, d.close, d.body = prefix+text[:start], text[start:closeStart], text[closeStart:end], text[end:]
	d.crlf = strings.HasSuffix(d.open, "\r\n")
	if err := d.parseFrontmatter(); err != nil {
		return nil, err
	}
	d.indent = detectIndent(d.fm)
	return d, nil
}

// unclosedOpening reports the line of an opening --- that the library
// passed over because no closing --- follows: it returns such a file as
// having no frontmatter, which would silently turn the keys into prompt.
func unclosedOpening(text string) (int, bool) {
	for line := 1; text != ""; line++ {
		l, rest, _ := strings.Cut(text, "\n")
		switch strings.TrimSpace(l) {
		case "":
			text = rest
			continue
		case "---":
			return line, true
		}
		return 0, false
	}
	return 0, false
}

// parseFrontmatter parses d.fm into d.root (the splicer calls it after an
// edit so node positions stay right).
func (d *Document) parseFrontmatter() error {
	root, err := decodeYAML(d.fm)
	return d.setRoot(root, err)
}

// setRoot installs the decoded frontmatter. Strictly invalid YAML with a
// plain intent is decoded leniently (see lenient.go).
func (d *Document) setRoot(n *yaml.Node, err error) error {
	d.root, d.repaired = nil, nil
	if err != nil {
		var repaired []repair
		n, repaired = repairYAML(d.fm)
		if n == nil {
			return fileProblem(d.file, d.fileLine(yamlErrorLine(err)), "", "invalid YAML in frontmatter: "+yamlErrorText(err))
		}
		d.repaired = repaired
	}
	if n.Kind == 0 || len(n.Content) == 0 {
		return nil
	}
	root := n.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil
	}
	if root.Kind != yaml.MappingNode {
		return fileProblem(d.file, d.line(root), "", "frontmatter must be a mapping of keys to values")
	}
	d.root = root
	return nil
}

// line converts a frontmatter node line into a line of the file: the
// frontmatter starts on the file's second line.
func (d *Document) line(n *yaml.Node) int {
	if n == nil || n.Line == 0 {
		return 1
	}
	return d.fileLine(n.Line)
}

// fileLine converts a 1-based frontmatter line into a file line: the
// frontmatter starts after the opening delimiter (and any blank lines
// before it, which the library allows).
func (d *Document) fileLine(fmLine int) int {
	return fmLine + strings.Count(d.open, "\n")
}

// Bytes returns the file's bytes; an unedited Document returns exactly what
// was parsed.
func (d *Document) Bytes() []byte {
	if !d.hasFM {
		return []byte(d.body)
	}
	closing := d.close
	if d.body != "" && !strings.HasSuffix(closing, "\n") {
		closing += d.newline()
	}
	return []byte(d.open + d.fm + closing + d.body)
}

// File returns the path the Document was parsed with.
func (d *Document) File() string { return d.file }

// Frontmatter returns the frontmatter text between the delimiters, exactly
// as in the file ("" when the file has none).
func (d *Document) Frontmatter() string { return d.fm }

// Body returns the Markdown after the frontmatter, exactly as in the file.
func (d *Document) Body() string { return d.body }

// SetBody replaces the Markdown body. Line breaks are converted to the
// file's own style (CRLF or LF), since browsers submit textareas with CRLF.
func (d *Document) SetBody(body string) {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	if d.crlf {
		body = strings.ReplaceAll(body, "\n", "\r\n")
	}
	d.body = body
}

func (d *Document) newline() string {
	if d.crlf {
		return "\r\n"
	}
	return "\n"
}

// Hash returns the content hash (sha256, hex) used to detect that a file
// changed on disk since it was read.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// detectIndent returns the smallest indentation used in the frontmatter, so
// re-encoded entries look like their neighbours.
func detectIndent(fm string) int {
	best := 0
	for line := range strings.SplitSeq(fm, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		n := len(line) - len(trimmed)
		if n == 0 || strings.TrimSpace(trimmed) == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if best == 0 || n < best {
			best = n
		}
	}
	return min(max(best, 2), 8)
}

func badUTF8Line(data string) int {
	line := 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRuneInString(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return line
		}
		if r == '\n' {
			line++
		}
		i += size
	}
	return line
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// yamlErrorLine extracts the 1-based frontmatter line from a yaml error.
// yaml.v3 reports parser errors ("did not find expected
// ...") with a 0-based line and scanner errors with a 1-based one; both
// point at the start of the construct that is broken.
func yamlErrorLine(err error) int {
	m := yamlLineRE.FindStringSubmatch(err.Error())
	if m == nil {
		return 1
	}
	n, _ := strconv.Atoi(m[1])
	if strings.Contains(err.Error(), "did not find expected") {
		n++
	}
	return n
}

// yamlErrorText drops the "yaml: line N: " prefix; the Problem carries the line.
func yamlErrorText(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if loc := yamlLineRE.FindStringIndex(msg); loc != nil && loc[0] == 0 {
		msg = strings.TrimPrefix(msg[loc[1]:], ": ")
	}
	return msg
}

func fileProblem(file string, line int, field, msg string) Problem {
	return Problem{File: file, Severity: SeverityError, Line: line, Field: field, Message: msg}
}
