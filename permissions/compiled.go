package permissions

// compiledLevel is one level's rules with patterns classified once, for the
// hot path (Effective) that needs a yes or no but no reason.
type compiledLevel struct {
	deny     []compiled
	allow    []compiled
	allowAll bool // Allow is nil or holds a pattern matching everything
}

// compileChain compiles every level that restricts anything into levels,
// drawing pattern storage from pats so a small chain needs no allocation. It
// returns false when some level allows nothing at all, since then the chain
// does too.
func compileChain(chain []Level, levels []compiledLevel, pats []compiled) ([]compiledLevel, bool) {
	for _, l := range chain {
		r := l.Rules
		if r.Allow != nil && len(r.Allow) == 0 {
			return nil, false
		}
		if r.Allow == nil && len(r.Deny) == 0 {
			continue
		}
		cl := compiledLevel{allowAll: r.Allow == nil}
		start := len(pats)
		for _, p := range r.Deny {
			if c := compile(p); c.kind != kindNone {
				pats = append(pats, c)
			}
		}
		cl.deny = pats[start:len(pats):len(pats)]
		start = len(pats)
		for _, p := range r.Allow {
			c := compile(p)
			if c.kind == kindAll {
				cl.allowAll = true
			}
			if c.kind != kindNone {
				pats = append(pats, c)
			}
		}
		if !cl.allowAll {
			cl.allow = pats[start:len(pats):len(pats)]
			if len(cl.allow) == 0 { // only empty patterns: nothing can match
				return nil, false
			}
		}
		levels = append(levels, cl)
	}
	return levels, true
}

// allowsAll reports whether every compiled level lets name through.
func allowsAll(levels []compiledLevel, name string) bool {
	for i := range levels {
		if !levels[i].allows(name) {
			return false
		}
	}
	return true
}

// allows is Rules.Decide reduced to its verdict.
func (l *compiledLevel) allows(name string) bool {
	for i := range l.deny {
		if l.deny[i].match(name) {
			return false
		}
	}
	if l.allowAll {
		return true
	}
	for i := range l.allow {
		if l.allow[i].match(name) {
			return true
		}
	}
	return false
}
