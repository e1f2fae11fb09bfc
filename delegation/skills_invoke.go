package delegation

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/skills"
)

// skillScope is one invocation's skills: what it may load, what it loaded,
// and the folders of those (tool.Skills, on every tool call's context).
type skillScope struct {
	inv   *invocation
	offer *skillOffer

	mu      sync.Mutex
	loaded  []string
	folders []string
	preload strings.Builder // the bodies of Claude Code's preloaded skills
}

var _ tool.Skills = (*skillScope)(nil)

// applySkills gives inv what its branch may use of the run's skills: the
// skill tool with its enum (or no skill tool when nothing is usable), and
// Claude Code's preloaded skills, loaded before the first turn. It is
// idempotent, so an invocation rebuilt by Steps gets the same.
func (inv *invocation) applySkills() {
	if inv.scope != nil {
		return
	}
	o := inv.skillOffer()
	inv.tools, inv.specs = o.tools, o.specs
	if o.prompt == "" && len(inv.agent.Preload) == 0 {
		return // nothing to load: no scope to keep
	}
	inv.scope = &skillScope{inv: inv, offer: o}
	for _, id := range inv.agent.Preload {
		if s, err := inv.scope.load(id); err == nil {
			fmt.Fprintf(&inv.scope.preload, "\n\n## Skill %s (preloaded)\n\nBase directory for this skill: %s\n\n%s", s.ID, s.Path, s.Body)
		}
	}
}

// system is the system prompt: the agent's body, the usable skills, and
// the instructions of the skills it preloads.
func (inv *invocation) system() string {
	if inv.scope == nil {
		return inv.agent.Prompt
	}
	if inv.scope.offer.prompt == "" && inv.scope.preload.Len() == 0 {
		return inv.agent.Prompt
	}
	return inv.agent.Prompt + inv.scope.offer.prompt + inv.scope.preload.String()
}

// skillsOf is the tool.Skills of inv's tool calls; nil when it has none.
func (inv *invocation) skillsOf() tool.Skills {
	if inv.scope == nil {
		return nil
	}
	return inv.scope
}

// Load loads a skill for the model (the skill tool): only a usable one.
func (sc *skillScope) Load(id string) (skills.Skill, error) {
	id = registry.NormalizeItemID(id)
	s, ok := sc.offer.lib.Skill(id)
	switch {
	case !ok:
		return s, fmt.Errorf("%w %q: the skills you may load are %s", skills.ErrUnknownSkill, id, strings.Join(skillIDs(sc.offer.usable), ", "))
	case !sc.offer.allowed[s.ID]:
		return s, fmt.Errorf("skill %q is %w: %s", s.ID, tool.ErrDenied, permissions.Skill(sc.offer.chain, s.ID).Reason)
	case !s.ModelInvocable:
		return s, fmt.Errorf("skill %q is %w: it sets disable-model-invocation, so only a person may start it", s.ID, tool.ErrDenied)
	}
	return sc.load(s.ID)
}

// load records that the allowed skill id was loaded and narrows the
// invocation's tools to its allowed-tools.
func (sc *skillScope) load(id string) (skills.Skill, error) {
	s, ok := sc.offer.lib.Skill(id)
	if !ok || !sc.offer.allowed[s.ID] {
		return s, fmt.Errorf("skill %q is not available", id)
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if slices.Contains(sc.loaded, s.ID) {
		return s, nil
	}
	sc.loaded = append(sc.loaded, s.ID)
	sc.folders = append(sc.folders, s.Path)
	if lvl, narrows := permissions.SkillLevel(s.ID, s.AllowedTools); narrows {
		sc.inv.narrow(lvl)
	}
	return s, nil
}

// Folders are the loaded skills' folders.
func (sc *skillScope) Folders() []string {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return slices.Clone(sc.folders)
}

// loadedSkills lists the skills inv loaded, in order.
func (inv *invocation) loadedSkills() []string {
	if inv.scope == nil {
		return nil
	}
	inv.scope.mu.Lock()
	defer inv.scope.mu.Unlock()
	return slices.Clone(inv.scope.loaded)
}

// skillAttrs adds the skills offered and loaded to an invoke_agent span's
// closing attributes.
func (inv *invocation) skillAttrs(attrs map[string]any) {
	if inv.scope == nil {
		return
	}
	if ids := skillIDs(inv.scope.offer.usable); len(ids) > 0 && inv.scope.offer.prompt != "" {
		attrs[AttrSkillsOffered] = ids
	}
	if loaded := inv.loadedSkills(); len(loaded) > 0 {
		attrs[AttrSkillsLoaded] = loaded
	}
}

// narrow adds a loaded skill's allowed-tools level to inv's tool chain: of
// its tools only those the level allows stay (the level allows the skill
// tool, so further skills can be loaded), for the rest of the invocation and for
// every child it starts. The invocation gets a toolset of its own, which
// its children's chains grow from.
func (inv *invocation) narrow(lvl permissions.Level) {
	chain := append(slices.Clip(inv.chain), lvl)
	tools := make(map[string]tool.Tool, len(inv.tools))
	for n, t := range inv.tools {
		if permissions.Tool(chain, n).Allowed {
			tools[n] = t
		}
	}
	specs := make([]model.Tool, 0, len(inv.specs))
	for _, sp := range inv.specs {
		if _, isTool := inv.tools[sp.Name]; !isTool || tools[sp.Name] != nil {
			specs = append(specs, sp)
		}
	}
	old := inv.set
	inv.set = &toolset{parent: old.parent, agent: old.agent, branch: old.branch, chain: chain, tools: tools, specs: specs,
		decisions: old.decisions, spanName: old.spanName, namesAttr: toolNames(specs), permissions: old.permissions,
		mayDelegate: old.mayDelegate, offer: old.offer, hidden: old.hidden, hasAsk: old.hasAsk}
	inv.set.skills.p.Store(old.skills.p.Load())
	inv.chain, inv.tools, inv.specs = chain, tools, specs
	inv.req.Tools = specs
}

// withSkills adds the skills a child loaded to the attributes its
// delegate or dispatch_agent span ends with, so the parent's timeline row
// says which skills the child used.
func withSkills(attrs map[string]any, loaded []string) map[string]any {
	if len(loaded) > 0 {
		attrs[AttrSkillsLoaded] = loaded
	}
	return attrs
}
