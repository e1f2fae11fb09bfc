package permissions

import (
	"errors"
	"strings"
)

// ErrUnsplittable is wrapped by SplitCommand for a command line whose simple
// commands cannot be told apart with certainty.
var ErrUnsplittable = errors.New("cannot split command")

// SplitCommand splits a bash command line into its simple commands at the
// operators ";", "&", "&&", "|", "||", "|&" and newlines, outside quotes,
// each trimmed, empty ones dropped. It is deliberately conservative: command
// substitution (backticks, "$("), process substitution, subshells and
// unbalanced quotes are errors, since what they run cannot be read off the
// line; a "#" comment is dropped up to the end of its line.
func SplitCommand(line string) ([]string, error) {
	var out []string
	var cur strings.Builder
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	const (
		plain = iota
		single
		double
	)
	state := plain
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch state {
		case single:
			if c == '\'' {
				state = plain
			}
			cur.WriteByte(c)
			continue
		case double:
			switch {
			case c == '\\' && i+1 < len(line):
				cur.WriteByte(c)
				i++
				c = line[i]
			case c == '"':
				state = plain
			case c == '`':
				return nil, unsplittable("backtick command substitution")
			case c == '$' && i+1 < len(line) && line[i+1] == '(':
				return nil, unsplittable("$( command substitution")
			}
			cur.WriteByte(c)
			continue
		}
		switch c {
		case '\\':
			if i+1 >= len(line) {
				return nil, unsplittable("a trailing backslash")
			}
			if line[i+1] == '\n' { // line continuation
				i++
				continue
			}
			cur.WriteByte(c)
			i++
			cur.WriteByte(line[i])
		case '\'':
			state = single
			cur.WriteByte(c)
		case '"':
			state = double
			cur.WriteByte(c)
		case '`':
			return nil, unsplittable("backtick command substitution")
		case '$':
			if i+1 < len(line) && line[i+1] == '(' {
				return nil, unsplittable("$( command substitution")
			}
			cur.WriteByte(c)
		case '(', ')':
			return nil, unsplittable("a subshell, group or process substitution")
		case '#':
			if cur.Len() == 0 || isSpace(line[i-1]) {
				for i+1 < len(line) && line[i+1] != '\n' {
					i++
				}
				continue
			}
			cur.WriteByte(c)
		case '&':
			if (i > 0 && (line[i-1] == '>' || line[i-1] == '<')) || (i+1 < len(line) && line[i+1] == '>') {
				cur.WriteByte(c) // a redirection: 2>&1, &>file
				continue
			}
			flush()
		case ';', '|', '\n':
			flush()
		default:
			cur.WriteByte(c)
		}
	}
	if state != plain {
		return nil, unsplittable("an unterminated quote")
	}
	flush()
	return out, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

func unsplittable(why string) error { return &splitError{why} }

type splitError struct{ why string }

func (e *splitError) Error() string { return ErrUnsplittable.Error() + ": " + e.why }
func (e *splitError) Unwrap() error { return ErrUnsplittable }
