package registry

import (
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// plainLineRE is a top-level "key: value" line whose value is plain (not
// quoted, not a flow collection, not a block scalar or anchor).
var plainLineRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.-]*):[ \t]+([^ \t"'\[\]{}|>&*!%#][^\r\n]*?)[ \t]*(\r?\n)?$`)

// flowLineRE is a top-level "key: [...] more" line: a closed flow list
// with more text after it, such as Claude Code's argument-hint: [env]
// [version]. A list left open is not matched: it is broken, not plain.
var flowLineRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.-]*):[ \t]+(\[[^\[\]\r\n]*\][ \t]*[^ \t\r\n#][^\r\n]*?)[ \t]*(\r?\n)?$`)

// repair is a top-level key whose one-line value was strictly invalid YAML
// and was read as plain text; why says what was wrong with it.
type repair struct {
	ref
	why string
}

// Why a value was read as plain text (the start of the warning).
const (
	whyColon = `the value has an unquoted ": "`
	whyFlow  = `the value is a list ([...]) with more text after it`
)

// repairYAML reads frontmatter that yaml.v3 rejects when its intent is plain
// and Claude Code accepts it: a one-line top-level value with an unquoted
// ": " in it (`description: Use when: the user asks`), or one that starts as
// a flow list and goes on after it (`argument-hint: [env] [version]`, the
// form Claude Code's own command docs teach). Each such line is
// single-quoted in a copy with the same line count, so node lines still
// point into the original text, whose bytes are not changed: an edit of that
// field re-encodes it properly, an edit of another field leaves it as it is.
// It returns nil when there is nothing to repair or the copy does not parse
// either; the keys repaired come with their 1-based frontmatter lines.
func repairYAML(fm string) (*yaml.Node, []repair) {
	lines := splitLines(fm)
	var fixed []repair
	for i, l := range lines {
		m, why := plainIntent(l)
		if m == nil || continued(lines, i) {
			continue
		}
		lines[i] = m[1] + ": '" + strings.ReplaceAll(m[2], "'", "''") + "'" + m[3]
		fixed = append(fixed, repair{ref{m[1], i + 1}, why})
	}
	if len(fixed) == 0 {
		return nil, nil
	}
	n, err := decodeYAML(strings.Join(lines, ""))
	if err != nil {
		return nil, nil
	}
	return n, fixed
}

// plainIntent matches a line whose value is plain text YAML cannot read:
// an unquoted ": " in a plain value, or a flow list with text after it
// whose brackets all close ([env] [version]); nil for any other line.
func plainIntent(l string) ([]string, string) {
	if m := plainLineRE.FindStringSubmatch(l); m != nil && strings.Contains(m[2], ": ") {
		return m, whyColon
	}
	if m := flowLineRE.FindStringSubmatch(l); m != nil && strings.Count(m[2], "[") == strings.Count(m[2], "]") {
		return m, whyFlow
	}
	return nil, ""
}

// continued reports whether line i's value goes on over indented lines (a
// multi-line plain scalar), which a one-line repair would break.
func continued(lines []string, i int) bool {
	if i+1 >= len(lines) {
		return false
	}
	next := lines[i+1]
	return (strings.HasPrefix(next, " ") || strings.HasPrefix(next, "\t")) && strings.TrimSpace(next) != ""
}
