package delegation

import (
	"encoding/xml"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/delegation/tool/skill"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry/skills"
)

// Agent Skills in the runtime (DESIGN §15, docs/skills.md). Which skills an
// invocation may use is decided like its tools: the skills rules of the
// global level, every ancestor and the agent, intersected
// (permissions.Skill). A usable skill that a model may invoke is listed by
// name and description in the system prompt, and the skill tool is
// offered with an enum of exactly those; everything else is neither
// listed nor loadable. What a branch may use is worked out once per
// toolset and Library (skillOffer) and shared, like the toolset itself.

// Span attributes of skills.
const (
	// AttrSkillsOffered lists, on an invoke_agent span, the skills the
	// invocation was told about.
	AttrSkillsOffered = "skills_offered"
	// AttrSkillsLoaded lists, on an invoke_agent span and on the
	// delegate or dispatch_agent span that started it, the skills the
	// invocation loaded (preloaded ones included), in order.
	AttrSkillsLoaded = "skills_loaded"
)

// runSkills is the Library a run uses: taken once, when first needed, so
// every branch of the run sees the same skills.
type runSkills struct {
	once sync.Once
	lib  *skills.Library
}

// noSkills is the Library of a runtime without skills.
var noSkills = skills.NewCatalog().Snapshot()

// library returns the run's Library (an empty one when the runtime has
// no skills, so the skill tool is offered to nobody).
func (rn *run) library() *skills.Library {
	rn.skills.once.Do(func() {
		rn.skills.lib = noSkills
		if src := rn.rt.cfg.Skills; src != nil {
			rn.skills.lib = src.Snapshot()
		}
	})
	return rn.skills.lib
}

// skillCache holds a toolset's skillOffer for the Library it was made for.
type skillCache struct{ p atomic.Pointer[skillOffer] }

// skillOffer is what a branch may use of one Library.
type skillOffer struct {
	lib       *skills.Library
	chain     []permissions.Level // global skills rules, then every agent's on the branch
	allowed   map[string]bool     // ids the chain allows
	usable    []skills.Skill      // allowed and model-invocable, by id
	decisions []permissions.Decision
	// tools and specs are the toolset's with the skill tool offered with
	// its enum, or taken away when no skill is usable.
	tools  map[string]tool.Tool
	specs  []model.Tool
	prompt string // the system prompt's skills section
}

// skillOffer returns what inv's branch may use of the run's skills.
func (inv *invocation) skillOffer() *skillOffer {
	lib := inv.rn.library()
	ts := inv.set
	if o := ts.skills.p.Load(); o != nil && o.lib == lib {
		return o
	}
	o := newSkillOffer(inv.rn.rt.cfg.GlobalSkills, ts, lib)
	ts.skills.p.Store(o)
	return o
}

func newSkillOffer(global permissions.Rules, ts *toolset, lib *skills.Library) *skillOffer {
	o := &skillOffer{lib: lib, chain: skillChain(global, ts), allowed: map[string]bool{}}
	skills := lib.Skills()
	o.decisions = permissions.Skills(o.chain, skillIDs(skills))
	for i, d := range o.decisions { // both sorted by id
		if d.Allowed {
			o.allowed[d.Subject] = true
			if skills[i].ModelInvocable {
				o.usable = append(o.usable, skills[i])
			}
		}
	}
	o.tools, o.specs = ts.tools, ts.specs
	if _, has := ts.tools[skill.Name]; has {
		o.tools = make(map[string]tool.Tool, len(ts.tools))
		for n, t := range ts.tools {
			if n != skill.Name || len(o.usable) > 0 {
				o.tools[n] = t
			}
		}
		o.specs = make([]model.Tool, 0, len(ts.specs))
		for _, sp := range ts.specs {
			switch {
			case sp.Name != skill.Name:
				o.specs = append(o.specs, sp)
			case len(o.usable) > 0:
				o.specs = append(o.specs, skill.SpecFor(skillIDs(o.usable)))
			}
		}
		if len(o.usable) > 0 {
			o.prompt = skillsSection(o.usable)
		}
	}
	return o
}

// skillChain is the skills chain of ts's branch: the global rules, then
// each agent's from the root down.
func skillChain(global permissions.Rules, ts *toolset) []permissions.Level {
	var branch []*toolset
	for t := ts; t != nil; t = t.parent {
		branch = append(branch, t)
	}
	chain := make([]permissions.Level, 0, len(branch)+1)
	chain = append(chain, permissions.Level{Name: permissions.GlobalLevel, Rules: global})
	for _, t := range slices.Backward(branch) {
		chain = append(chain, permissions.Level{Name: t.agent.perm.Name, Rules: t.agent.skills})
	}
	return chain
}

// skillIDs are the ids of ss, in their order.
func skillIDs(ss []skills.Skill) []string {
	ids := make([]string, len(ss))
	for i, s := range ss {
		ids[i] = s.ID
	}
	return ids
}

// skillsSection is the part of the system prompt that lists the usable
// skills, in the shape the Agent Skills integration guide suggests (an
// available_skills block of names and descriptions), after a few lines on
// how to use them.
func skillsSection(skills []skills.Skill) string {
	var b strings.Builder
	b.WriteString("\n\n## Skills\n\n" +
		"You have Agent Skills: folders of instructions, scripts and resources for particular tasks. " +
		"When a task matches a skill's description, call the skill tool with its name to load its instructions, and follow them. " +
		"The files they name are in the skill's base directory, which the skill tool gives: read them with the filesystem tools there, " +
		"and run its scripts with shell.run.\n\n<available_skills>\n")
	for _, s := range skills {
		b.WriteString("<skill><name>")
		xml.EscapeText(&b, []byte(s.ID))
		b.WriteString("</name><description>")
		xml.EscapeText(&b, []byte(s.Description))
		b.WriteString("</description></skill>\n")
	}
	b.WriteString("</available_skills>")
	return b.String()
}

// SkillsPrompt is the system prompt section an agent allowed every skill
// of skills is given; for measuring its size (docs/skills.md).
func SkillsPrompt(skills []skills.Skill) string { return skillsSection(skills) }
