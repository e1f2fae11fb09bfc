package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

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
		return nil, fileProblem(file, 0, "", fmt.Sprintf("file is %d bytes, over the %d byte (1 MiB) limit", len(text), MaxFileSize))
	}
	if !utf8.ValidString(text) {
		return nil, fileProblem(file, badUTF8Line(text), "", "file is not valid UTF-8")
	}
	return parseString(file, text)
}

// parseString is Parse after the size and encoding checks.
func parseString(file, s string) (*Document, error) {
	d := &Document{file: file, indent: 2}
	open, ok := openingLine(s)
	if !ok {
		d.body = s
		d.crlf = strings.Contains(s, "\r\n")
		return d, nil
	}
	d.hasFM, d.open, d.crlf = true, open, strings.HasSuffix(open, "\r\n")
	rest := s[len(open):]
	for pos := 0; ; {
		nl := strings.IndexByte(rest[pos:], '\n')
		line := rest[pos:]
		if nl >= 0 {
			line = rest[pos : pos+nl+1]
		}
		if isDelimiter(line) {
			d.fm, d.close, d.body = rest[:pos], line, rest[pos+len(line):]
			break
		}
		if nl < 0 {
			return nil, fileProblem(file, 1, "", "the opening --- on line 1 is never closed by a --- line")
		}
		pos += nl + 1
	}
	if err := d.parseFrontmatter(); err != nil {
		return nil, err
	}
	d.indent = detectIndent(d.fm)
	return d, nil
}

// parseFrontmatter parses d.fm into d.root.
func (d *Document) parseFrontmatter() error {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(d.fm), &n); err != nil {
		return fileProblem(d.file, yamlErrorLine(err), "", "invalid YAML in frontmatter: "+yamlErrorText(err))
	}
	d.root = nil
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
	return n.Line + 1
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

func openingLine(s string) (string, bool) {
	prefix := ""
	if strings.HasPrefix(s, bom) {
		prefix, s = bom, s[len(bom):]
	}
	nl := strings.IndexByte(s, '\n')
	if nl < 0 || !isDelimiter(s[:nl+1]) {
		return "", false
	}
	return prefix + s[:nl+1], true
}

func isDelimiter(line string) bool {
	return strings.TrimRight(line, " \t\r\n") == "---"
}

// detectIndent returns the smallest indentation used in the frontmatter, so
// re-encoded entries look like their neighbours.
func detectIndent(fm string) int {
	best := 0
	for _, line := range strings.Split(fm, "\n") {
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

// yamlErrorLine extracts the frontmatter line from a yaml error and shifts
// it to a file line. yaml.v3 reports parser errors ("did not find expected
// ...") with a 0-based line and scanner errors with a 1-based one; both
// point at the start of the construct that is broken.
func yamlErrorLine(err error) int {
	m := yamlLineRE.FindStringSubmatch(err.Error())
	if m == nil {
		return 2
	}
	n, _ := strconv.Atoi(m[1])
	if strings.Contains(err.Error(), "did not find expected") {
		n++
	}
	return n + 1
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
