package registry

import (
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// plainLineRE is a top-level "key: value" line whose value is plain (not
// quoted, not a flow collection, not a block scalar or anchor).
var plainLineRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.-]*):[ \t]+([^ \t"'\[\]{}|>&*!%#][^\r\n]*?)[ \t]*(\r?\n)?$`)

// repairYAML reads frontmatter that yaml.v3 rejects when its intent is plain
// and Claude Code accepts it: a one-line top-level value with an unquoted
// ": " in it (`description: Use when: the user asks`). Each such line is
// single-quoted in a copy with the same line count, so node lines still
// point into the original text, whose bytes are not changed: an edit of that
// field re-encodes it properly, an edit of another field leaves it as it is.
// It returns nil when there is nothing to repair or the copy does not parse
// either; the keys repaired come with their 1-based frontmatter lines.
func repairYAML(fm string) (*yaml.Node, []ref) {
	lines := splitLines(fm)
	var fixed []ref
	for i, l := range lines {
		m := plainLineRE.FindStringSubmatch(l)
		if m == nil || !strings.Contains(m[2], ": ") || continued(lines, i) {
			continue
		}
		lines[i] = m[1] + ": '" + strings.ReplaceAll(m[2], "'", "''") + "'" + m[3]
		fixed = append(fixed, ref{m[1], i + 1})
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

// continued reports whether line i's value goes on over indented lines (a
// multi-line plain scalar), which a one-line repair would break.
func continued(lines []string, i int) bool {
	if i+1 >= len(lines) {
		return false
	}
	next := lines[i+1]
	return (strings.HasPrefix(next, " ") || strings.HasPrefix(next, "\t")) && strings.TrimSpace(next) != ""
}
