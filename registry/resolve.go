package registry

import "slices"

// resolveDisplayNames returns, for every served id, the version in use,
// with sub-agent entries that name another agent by its display name
// rewritten to its id. VS Code files list their sub-agents by name: (agents:
// ['SWE', 'QA']), which is a display name here since VS Code files are
// named by their file (swe-subagent). Only a display name that one agent
// alone carries, and that is no agent's id, is rewritten; the file keeps its
// spelling. The versions of other files are shared, not copied.
func resolveDisplayNames(byName map[string]*entry) map[string]*version {
	served := make(map[string]*version, len(byName))
	display := map[string]string{} // display name → id; "" when ambiguous
	for id, e := range byName {
		served[id] = e.served
		if dn := e.served.agent.DisplayName; dn != "" {
			if _, taken := display[dn]; taken {
				display[dn] = ""
			} else {
				display[dn] = id
			}
		}
	}
	if len(display) == 0 {
		return served
	}
	lookup := func(name string) (string, bool) {
		if _, isID := byName[name]; isID {
			return "", false
		}
		id := display[name]
		return id, id != ""
	}
	for id, v := range served {
		if r, changed := resolveVersion(v, lookup); changed {
			served[id] = r
		}
	}
	return served
}

// resolveVersion rewrites v's sub-agent names that lookup maps, into a copy.
func resolveVersion(v *version, lookup func(string) (string, bool)) (*version, bool) {
	rewrite := func(names []string) ([]string, bool) {
		var out []string
		for i, n := range names {
			if id, ok := lookup(n); ok {
				if out == nil {
					out = slices.Clone(names)
				}
				out[i] = id
			}
		}
		return out, out != nil
	}
	allow, a := rewrite(v.agent.Subagents.Rules.Allow)
	deny, d := rewrite(v.agent.Subagents.Rules.Deny)
	var refs []ref
	for i, r := range v.facts.allow {
		if id, ok := lookup(r.name); ok {
			if refs == nil {
				refs = slices.Clone(v.facts.allow)
			}
			refs[i].name = id
		}
	}
	if !a && !d && refs == nil {
		return v, false
	}
	c := *v
	if a {
		c.agent.Subagents.Rules.Allow = allow
	}
	if d {
		c.agent.Subagents.Rules.Deny = deny
	}
	if refs != nil {
		c.facts.allow = refs
	}
	return &c, true
}
