package permissions

import (
	"slices"
	"strconv"
	"strings"
)

// Skills (Agent Skills, DESIGN §15) are a permission dimension of their
// own, decided like tools: each level of the chain (global, every
// ancestor, the agent) has skills allow and deny patterns over skill ids,
// and a skill is usable only where every level lets it through, so a
// sub-agent never uses a skill its parent could not. Patterns are the
// tools' patterns: an id ("pdf"), a plugin's skills as a group ("docs"
// matches "docs" and every "docs.*" id a collision gave that prefix), a
// glob ("pdf-*") or "*". Ask patterns have no meaning for skills and are
// ignored: loading a skill only reads text.
//
// A skill's allowed-tools narrows, never widens: once an invocation loads
// a skill that names tools, SkillLevel joins its tool chain, so only the
// tools every earlier level allowed and the skill names remain, for the
// rest of that invocation and for whatever it delegates.

// Skill decides skill id through the chain of skills rules.
func Skill(chain []Level, id string) Decision {
	return Tool(withoutAsk(chain), id)
}

// Skills decides every skill id of ids, sorted and each once.
func Skills(chain []Level, ids []string) []Decision {
	return Tools(withoutAsk(chain), ids)
}

func withoutAsk(chain []Level) []Level {
	for _, l := range chain {
		if len(l.Rules.Ask) > 0 {
			out := make([]Level, len(chain))
			for i, l := range chain {
				out[i] = Level{Name: l.Name, Rules: Rules{Allow: l.Rules.Allow, Deny: l.Rules.Deny}}
			}
			return out
		}
	}
	return chain
}

// skillLevelPrefix starts the name of a level a loaded skill adds.
const skillLevelPrefix = "skill:"

// SkillTool is the tool that loads skills; a skill's level always allows
// it, so loading one skill never stops the agent from loading another.
const SkillTool = "skill"

// SkillLevel is the tool level a loaded skill with allowed-tools adds to
// an invocation's chain: it allows exactly those tools (and SkillTool). A
// skill without allowed-tools adds no level (ok is false).
func SkillLevel(id string, allowedTools []string) (Level, bool) {
	if allowedTools == nil {
		return Level{}, false
	}
	allow := append(slices.Clone(allowedTools), SkillTool)
	return Level{Name: skillLevelPrefix + id, Rules: Rules{Allow: allow}}, true
}

// skillLabel is how a reason names a skill's level: `skill "pdf"`.
func skillLabel(level string) (string, bool) {
	id, ok := strings.CutPrefix(level, skillLevelPrefix)
	if !ok {
		return "", false
	}
	return "skill " + strconv.Quote(id) + "'s allowed-tools", true
}
