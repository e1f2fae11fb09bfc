package permissions_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/agentry/agentry/permissions"
)

// propertyTools is the catalogue random policies are decided against.
// It is deliberately unsorted and includes a name without a group.
var propertyTools = append(slices.Clone(builtin), "neo4j.query", "neo4j.write", "mcp1.x", "mcp2.x", "mcp12.x", "github.repos.list", "github", "filesystem.aaa")

// propertyPatterns is the pool random levels draw from: every pattern form.
var propertyPatterns = []string{
	"*", "filesystem", "web", "neo4j", "mcp?.x", "filesystem.read_*", "*_file", "filesystem.*",
	"web.fetch", "filesystem.grep", "neo4j.query", "github", "github.repos", "f*e", "", "nothing.here",
}

// bytesSource turns fuzz input into choices; when it runs dry every choice is 0.
type bytesSource struct{ b []byte }

func (s *bytesSource) next(n int) int {
	if len(s.b) == 0 {
		return 0
	}
	v := int(s.b[0]) % n
	s.b = s.b[1:]
	return v
}

// randomRules draws one level's rules: absent, empty or listed allow; some deny.
func randomRules(s *bytesSource) permissions.Rules {
	var r permissions.Rules
	switch s.next(4) {
	case 0: // absent allow
	case 1:
		r.Allow = []string{}
	default:
		r.Allow = []string{}
		for range 1 + s.next(4) {
			r.Allow = append(r.Allow, propertyPatterns[s.next(len(propertyPatterns))])
		}
	}
	for range s.next(3) {
		r.Deny = append(r.Deny, propertyPatterns[s.next(len(propertyPatterns))])
	}
	return r
}

// randomChain draws a global level and one to four agents.
func randomChain(s *bytesSource) []permissions.Level {
	chain := []permissions.Level{{Name: permissions.GlobalLevel, Rules: randomRules(s)}}
	for i := range 1 + s.next(4) {
		chain = append(chain, permissions.Level{Name: fmt.Sprintf("agent-%d", i), Rules: randomRules(s)})
	}
	return chain
}

// checkChain verifies, for one chain, that each child's effective set is a
// subset of its parent's, that Effective agrees with Tools, and that every
// reason names a level that really decides that way.
func checkChain(t *testing.T, chain []permissions.Level) {
	t.Helper()
	parent := effective(chain[:1], propertyTools)
	for k := 2; k <= len(chain); k++ {
		child := effective(chain[:k], propertyTools)
		for _, tool := range child {
			if !slices.Contains(parent, tool) {
				t.Fatalf("child %s holds %s which its parent does not (parent %v, child %v)\nchain %+v",
					chain[k-1].Name, tool, parent, child, chain[:k])
			}
		}
		parent = child
	}
	var allowed []string
	for _, d := range permissions.Tools(chain, propertyTools) {
		if d.Allowed {
			allowed = append(allowed, d.Subject)
			checkAllowedReason(t, chain, d)
		} else {
			checkDeniedReason(t, chain, d)
		}
	}
	if !slices.Equal(allowed, parent) && !(len(allowed) == 0 && len(parent) == 0) {
		t.Fatalf("Effective %v disagrees with Tools %v\nchain %+v", parent, allowed, chain)
	}
	sorted := slices.Sorted(slices.Values(append(slices.Clone(propertyTools), "web.fetch")))
	if again := effective(chain, sorted); !slices.Equal(again, parent) {
		t.Fatalf("Effective over a sorted catalogue gives %v, over an unsorted one %v\nchain %+v", again, parent, chain)
	}
}

// checkDeniedReason asserts the named level exists and denies the tool itself,
// by the same pattern, and that every level before it allows.
func checkDeniedReason(t *testing.T, chain []permissions.Level, d permissions.Decision) {
	t.Helper()
	i := slices.IndexFunc(chain, func(l permissions.Level) bool { return l.Name == d.Level })
	if i < 0 {
		t.Fatalf("denial of %s names level %q, not in the chain: %+v", d.Subject, d.Level, d)
	}
	own := chain[i].Rules.Decide(chain[i].Name, d.Subject)
	if own.Allowed || own.Pattern != d.Pattern || d.Reason == "" {
		t.Fatalf("denial of %s names level %q, which decides %+v\nchain %+v", d.Subject, d.Level, own, chain)
	}
	for _, l := range chain[:i] {
		if !l.Rules.Decide(l.Name, d.Subject).Allowed {
			t.Fatalf("denial of %s names %q but the earlier level %q denies too", d.Subject, d.Level, l.Name)
		}
	}
}

// checkAllowedReason asserts every level allows and the quoted pattern is one
// the named level really allowed by.
func checkAllowedReason(t *testing.T, chain []permissions.Level, d permissions.Decision) {
	t.Helper()
	for _, l := range chain {
		own := l.Rules.Decide(l.Name, d.Subject)
		if !own.Allowed {
			t.Fatalf("%s is allowed but level %q denies it: %+v", d.Subject, l.Name, own)
		}
		if l.Name == d.Level && own.Pattern != d.Pattern {
			t.Fatalf("%s is allowed citing %q %q, but that level allows by %q", d.Subject, d.Level, d.Pattern, own.Pattern)
		}
	}
}

func FuzzChildSubset(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 2, 0, 1, 1, 3, 2, 1, 5, 9, 0, 0})
	f.Add([]byte{1, 0, 3, 2, 3, 5, 2, 6, 7, 1, 4, 1, 2, 3, 0, 11})
	f.Add([]byte{2, 1, 0, 3, 2, 4, 4, 3, 3, 0, 0, 2, 1, 5, 2, 2, 6, 8, 1, 9})
	f.Add([]byte{0, 2, 3, 3, 3, 3, 3, 2, 2, 14, 13, 3, 1, 12, 2, 2, 2, 1, 1})
	f.Add([]byte("global allows star; agents narrow it down"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkChain(t, randomChain(&bytesSource{b: data}))
	})
}

// TestChildSubsetOnRandomPolicies runs the fuzz property over many seeded
// random policies on every ordinary `go test`, beyond the fixed corpus.
func TestChildSubsetOnRandomPolicies(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		data := make([]byte, 40)
		for i := range data {
			data[i] = byte(rng.UintN(256))
		}
		checkChain(t, randomChain(&bytesSource{b: data}))
	}
}
