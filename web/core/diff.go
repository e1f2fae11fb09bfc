package core

import (
	"strconv"

	"github.com/agentry/agentry/registry/diff"
)

// DiffSection is two texts compared line by line, side by side: a file's
// frontmatter or body (History), two runs' answers (a run diff).
type DiffSection struct {
	Title string
	Rows  []DiffRow
	Same  bool
}

// DiffRow is one line of a side-by-side diff: Op says whether the line is
// in both (eq), only left (del), only right (ins), or changed (chg: left
// was replaced by right).
type DiffRow struct {
	Op          string
	Left, Right string
	LeftNo      int // 0 when the side has no line here
	RightNo     int
}

// lineNo is a line number for the page ("" for none).
func lineNo(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// SideBySide compares a and b line by line (diff.Lines); a run of
// deleted lines followed by inserted ones pairs up as changed lines.
func SideBySide(title, a, b string) DiffSection {
	s := DiffSection{Title: title, Same: a == b}
	ln, rn := 0, 0
	var dels []string
	flush := func(ins []string) {
		for i := 0; i < max(len(dels), len(ins)); i++ {
			r := DiffRow{Op: "chg"}
			if i < len(dels) {
				ln++
				r.Left, r.LeftNo = dels[i], ln
			} else {
				r.Op = "ins"
			}
			if i < len(ins) {
				rn++
				r.Right, r.RightNo = ins[i], rn
			} else {
				r.Op = "del"
			}
			s.Rows = append(s.Rows, r)
		}
		dels = nil
	}
	for _, ch := range diff.Lines(a, b) {
		switch ch.Op {
		case diff.Delete:
			flush(nil)
			dels = ch.Lines
		case diff.Insert:
			flush(ch.Lines)
		default:
			flush(nil)
			for _, l := range ch.Lines {
				ln++
				rn++
				s.Rows = append(s.Rows, DiffRow{Op: "eq", Left: l, Right: l, LeftNo: ln, RightNo: rn})
			}
		}
	}
	flush(nil)
	return s
}
