package sched

// Line is a count of slots whose waiters are served in arrival order, as
// plain data for code that may not block: a state machine (package loop)
// or Temporal workflow code. Waiters are named by the caller's ids. A
// Line with a limit of 0 or less never makes anyone wait.
type Line struct {
	limit, used int
	waiting     []int
}

// NewLine returns a line of limit slots (0 or less: no limit).
func NewLine(limit int) Line { return Line{limit: limit} }

// Limit is the number of slots (0: no limit).
func (l *Line) Limit() int { return l.limit }

// Free reports whether Take would grant a slot at once.
func (l *Line) Free() bool { return l.limit <= 0 || l.used < l.limit && len(l.waiting) == 0 }

// Take takes a slot for id: true when one was free and nobody waited
// before it, false when id joined the end of the line.
func (l *Line) Take(id int) bool {
	if l.limit <= 0 {
		return true
	}
	if l.used < l.limit && len(l.waiting) == 0 {
		l.used++
		return true
	}
	l.waiting = append(l.waiting, id)
	return false
}

// Release frees a slot. When someone waits, the slot is theirs at once:
// Release returns their id and true.
func (l *Line) Release() (int, bool) {
	if l.limit <= 0 {
		return 0, false
	}
	if len(l.waiting) > 0 {
		id := l.waiting[0]
		l.waiting = l.waiting[1:]
		return id, true
	}
	l.used--
	return 0, false
}

// Leave takes id out of the line; false when it was not waiting.
func (l *Line) Leave(id int) bool {
	for i, w := range l.waiting {
		if w == id {
			l.waiting = append(l.waiting[:i], l.waiting[i+1:]...)
			return true
		}
	}
	return false
}

// Waiting reports whether id waits in the line.
func (l *Line) Waiting(id int) bool {
	for _, w := range l.waiting {
		if w == id {
			return true
		}
	}
	return false
}
