package permissions

// The hot path. Effective is asked for every agent invocation, with a chain of
// a few levels and a catalogue of a few hundred tools. Tool names come grouped
// ("github.*", "jira.*"), and most patterns can only ever match one group, so
// the chain is compiled once, then narrowed to the patterns that concern the
// current group whenever the group changes. Often that settles the whole group
// at once (a level allows "web", or denies "jira"), and names are never matched
// one by one. Everything lives in caller-provided buffers so a typical chain
// costs no allocation.

// span is a half-open range of indexes into a pattern buffer.
type span struct{ from, to int }

// compiledLevel is one level's rules with patterns classified once.
type compiledLevel struct {
	deny, allow span
	allowAll    bool // Allow is nil or holds a pattern matching everything
}

// plan is a compiled chain: its levels and the pattern buffer they index.
type plan struct {
	pats   []compiled
	levels []compiledLevel
}

// compileChain compiles every level that restricts anything, appending to the
// given buffers. It returns false when some level allows nothing at all, since
// then the chain does too.
func compileChain(chain []Level, levels []compiledLevel, pats []compiled) (plan, bool) {
	for _, l := range chain {
		r := l.Rules
		if r.Allow == nil && len(r.Deny) == 0 {
			continue
		}
		cl := compiledLevel{allowAll: r.Allow == nil}
		cl.deny.from = len(pats)
		for _, p := range r.Deny {
			if c := compile(p); c.kind != kindNone && !c.arg {
				pats = append(pats, c)
			}
		}
		cl.deny.to, cl.allow.from = len(pats), len(pats)
		for _, p := range r.Allow {
			c := compile(p)
			if c.kind == kindAll {
				cl.allowAll = true
			}
			if c.kind != kindNone && !cl.allowAll {
				pats = append(pats, c)
			}
		}
		if cl.allowAll {
			pats = pats[:cl.allow.from]
		}
		cl.allow.to = len(pats)
		if !cl.allowAll && cl.allow.from == cl.allow.to { // empty allow list
			return plan{}, false
		}
		levels = append(levels, cl)
	}
	return plan{pats: pats, levels: levels}, true
}

// Verdicts of a plan narrowed to one group.
const (
	groupDenied  = iota // some level denies every name of the group
	groupAllowed        // every level allows every name of the group
	groupPerName        // names must be matched against the narrowed plan
)

// narrow returns the plan restricted to the patterns that can match a name of
// group g, in the given buffers, and whether that already decides the group.
func (p *plan) narrow(g string, levels []compiledLevel, pats []compiled) (plan, int) {
	for _, l := range p.levels {
		n := compiledLevel{allowAll: l.allowAll}
		n.deny.from = len(pats)
		for _, c := range p.pats[l.deny.from:l.deny.to] {
			if c.group == g && c.kind == kindLiteral && c.lit == g {
				return plan{}, groupDenied
			}
			if c.anyGroup || c.group == g {
				pats = append(pats, c)
			}
		}
		n.deny.to, n.allow.from = len(pats), len(pats)
		for _, c := range p.pats[l.allow.from:l.allow.to] {
			if n.allowAll {
				break
			}
			if c.group == g && c.kind == kindLiteral && c.lit == g {
				n.allowAll = true
			} else if c.anyGroup || c.group == g {
				pats = append(pats, c)
			}
		}
		if n.allowAll {
			pats = pats[:n.allow.from]
		}
		n.allow.to = len(pats)
		switch {
		case !n.allowAll && n.allow.from == n.allow.to:
			return plan{}, groupDenied
		case n.allowAll && n.deny.from == n.deny.to:
			continue // this level lets the whole group through
		}
		levels = append(levels, n)
	}
	if len(levels) == 0 {
		return plan{}, groupAllowed
	}
	return plan{pats: pats, levels: levels}, groupPerName
}

// allows reports whether every level of p lets name through.
func (p *plan) allows(name string) bool {
	for _, l := range p.levels {
		if !p.levelAllows(l, name) {
			return false
		}
	}
	return true
}

// levelAllows is Rules.Decide reduced to its verdict.
func (p *plan) levelAllows(l compiledLevel, name string) bool {
	for i := l.deny.from; i < l.deny.to; i++ {
		if p.pats[i].match(name) {
			return false
		}
	}
	if l.allowAll {
		return true
	}
	for i := l.allow.from; i < l.allow.to; i++ {
		if p.pats[i].match(name) {
			return true
		}
	}
	return false
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
