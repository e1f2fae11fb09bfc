package permissions

import "strings"

// Match reports whether pattern matches name: a full name ("web.fetch"), a group
// ("web" matches every "web.*"), or a glob ("filesystem.read_*", "*", "mcp?.x");
// used for tools and agent names.
//
// A pattern without wildcards matches the name itself and every name beneath it
// (the pattern followed by "."), which is what makes "web" a group. In a glob,
// "*" matches any run of characters, dots included, and "?" exactly one; no
// other character is special. Matching is case-sensitive and an empty pattern
// matches nothing.
func Match(pattern, name string) bool {
	c := compile(pattern)
	return c.match(name)
}

// Pattern kinds, cheapest to test first. Classifying a pattern once lets a chain
// of levels be decided for hundreds of tools without rescanning pattern text.
const (
	kindNone    uint8 = iota // empty pattern: matches nothing
	kindLiteral              // full name or group
	kindAll                  // "*"
	kindPrefix               // "lit*"
	kindSuffix               // "*lit"
	kindGlob                 // anything else with a wildcard
)

// compiled is one classified pattern.
type compiled struct {
	raw string
	lit string // the literal part for kindLiteral, kindPrefix and kindSuffix
	// group is the tool group every name the pattern matches must belong to
	// (the text before the first dot), unless anyGroup says it may match many.
	group    string
	kind     uint8
	anyGroup bool
	// arg marks a pattern with an argument part ("shell.run(git *)"),
	// compiled as its tool part; deny lists skip it when deciding tools,
	// since it denies only matching calls (command.go).
	arg bool
}

// compile classifies pattern so that matching it needs no further parsing.
func compile(pattern string) compiled {
	if tp, _, ok := SplitPattern(pattern); ok {
		if _, _, valid := argumentPattern(pattern); !valid {
			return compiled{raw: pattern, kind: kindNone, arg: true} // "*(git *)" allows nothing
		}
		c := compile(tp)
		c.arg = true
		return c
	}
	c := compiled{raw: pattern, lit: pattern}
	c.group = groupOf(pattern)
	c.anyGroup = hasWildcard(c.group)
	switch {
	case pattern == "":
		c.kind = kindNone
	case !hasWildcard(pattern):
		c.kind = kindLiteral
	case strings.Trim(pattern, "*") == "":
		c.kind = kindAll
	case strings.IndexAny(pattern, "*?") == len(pattern)-1 && pattern[len(pattern)-1] == '*':
		c.kind, c.lit = kindPrefix, pattern[:len(pattern)-1]
	case strings.LastIndexAny(pattern, "*?") == 0 && pattern[0] == '*':
		c.kind, c.lit = kindSuffix, pattern[1:]
	default:
		c.kind = kindGlob
	}
	return c
}

// hasWildcard reports whether s holds a "*" or "?".
func hasWildcard(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '*' || s[i] == '?' {
			return true
		}
	}
	return false
}

// match reports whether c matches name.
func (c *compiled) match(name string) bool {
	switch c.kind {
	case kindLiteral:
		return matchLiteral(c.lit, name)
	case kindAll:
		return true
	case kindPrefix:
		return strings.HasPrefix(name, c.lit)
	case kindSuffix:
		return strings.HasSuffix(name, c.lit)
	case kindGlob:
		return matchGlob(c.raw, name)
	}
	return false
}

// matchLiteral is the full-name-or-group rule.
func matchLiteral(lit, name string) bool {
	n := len(lit)
	if len(name) == n {
		return name == lit
	}
	return len(name) > n && name[n] == '.' && name[:n] == lit
}

// specificity ranks a pattern that matched name, so a reason can quote the most
// specific one: an exact name beats any glob, a glob with more literal
// characters beats one with fewer or a group, and "*" ranks last.
func (c *compiled) specificity(name string) int {
	if c.kind == kindLiteral {
		if name == c.lit {
			return 1 << 20
		}
		return len(c.lit)
	}
	n := 0
	for i := 0; i < len(c.raw); i++ {
		if c.raw[i] != '*' && c.raw[i] != '?' {
			n++
		}
	}
	return n
}

// matchGlob matches "*" and "?" wildcards with the classic linear backtracking
// walk: remember the last star and retry from one character further on failure.
func matchGlob(pattern, name string) bool {
	p, n := 0, 0
	star, mark := -1, 0
	for n < len(name) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == name[n]):
			p++
			n++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, n
			p++
		case star >= 0:
			p = star + 1
			mark++
			n = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// groupOf is the part of a tool name before its first dot, or the whole name.
func groupOf(name string) string {
	for i := 0; i < len(name); i++ {
		if name[i] == '.' {
			return name[:i]
		}
	}
	return name
}
