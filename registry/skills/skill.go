package skills

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/agentry/agentry/registry"
)

// FileName is the file that makes a folder an Agent Skill.
const FileName = "SKILL.md"

// Limits of the Agent Skills specification, checked as warnings: real
// skills break them now and then, and Claude Code loads them anyway.
const (
	MaxName          = 64
	MaxDescription   = 1024
	MaxCompatibility = 500
)

// skillNameRE is the Agent Skills spec's name: lowercase letters, digits
// and single hyphens, neither first nor last.
var skillNameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ValidName reports whether name follows the Agent Skills spec's name
// rule (1-64 characters of a-z, 0-9 and single hyphens, no hyphen first or
// last).
func ValidName(name string) bool {
	return len(name) <= MaxName && skillNameRE.MatchString(name)
}

// Skill is one Agent Skill: a folder whose SKILL.md has name and
// description in its frontmatter and instructions in its body, beside
// optional scripts/, references/ and assets/. It is a value; the catalog
// hands out copies.
type Skill struct {
	// ID is how agentry names the skill: in the skill tool's enum, in
	// skills: permissions, in URLs and traces. It is Name when that is
	// valid, else the folder's name slugged; a plugin's skill whose name
	// another skill has too is "plugin.name" (Library).
	ID string `json:"id"`
	// Name is name: as written ("" when absent).
	Name        string `json:"name"`
	Description string `json:"description"`
	// Plugin is the installed plugin that ships the skill, "" for a
	// project's own.
	Plugin string `json:"plugin,omitempty"`
	// Root names where the skill was found: "skills", ".claude/skills",
	// ".github/skills", ".agents/skills" or "plugins".
	Root string `json:"root"`
	// Dir is the skill's folder, slash-separated and relative to its root
	// ("pdf"; in the plugins root "document-skills/skills/pdf").
	Dir string `json:"dir"`
	// Path is the skill's folder on disk, absolute; the skill tool tells
	// the model this base directory, and the filesystem tools and
	// shell.run reach its files through it.
	Path string `json:"path"`
	// AllowedTools are the agentry tools allowed-tools names, mapped from
	// Claude Code's names; nil when the skill names none. Loading the
	// skill narrows the agent's tools to them (never widens).
	AllowedTools []string `json:"allowed_tools,omitempty"`
	License      string   `json:"license,omitempty"`
	// Compatibility is the spec's free text about the environment needed.
	Compatibility string            `json:"compatibility,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
	// ModelInvocable is false for Claude Code's
	// disable-model-invocation: true, a skill only a person starts: it is
	// not offered to models.
	ModelInvocable bool `json:"model_invocable"`
	// Body is the Markdown after the frontmatter: what the skill tool
	// returns.
	Body string `json:"-"`
	// Files are the skill folder's other files, sorted.
	Files []Resource `json:"files"`
}

// Resource is one file of a skill's folder besides SKILL.md: a script,
// a reference or an asset the instructions name.
type Resource struct {
	// Path is relative to the skill's folder, slash-separated.
	Path string `json:"path"`
	Size int64  `json:"size"`
}

// File is the slash path of the skill's SKILL.md relative to its root.
func (s Skill) File() string { return path.Join(s.Dir, FileName) }

// Parse reads the SKILL.md of the skill folder dir (slash path,
// relative to its root) with the folder's other files already listed, and
// returns the skill and the problems of the file (file:line: reason). An
// error problem means the skill is not served: the file cannot be read as
// Markdown with YAML frontmatter, or the description the model chooses by
// is missing. Everything else the spec asks for (the name's form and
// length, the name matching the folder, lengths, references to files the
// folder does not have) is a warning, and the skill loads.
func Parse(dir string, data []byte, files []Resource) (Skill, []registry.Problem) {
	file := path.Join(dir, FileName)
	s := Skill{Dir: dir, Files: files, ModelInvocable: true}
	d, err := registry.Parse(file, data)
	if err != nil {
		p, ok := err.(registry.Problem)
		if !ok {
			p = registry.Problem{File: file, Severity: registry.SeverityError, Message: err.Error()}
		}
		return s, []registry.Problem{p}
	}
	dc := &skillDecoder{Fields: d.Fields(), s: &s}
	dc.decode()
	s.Body = strings.TrimSpace(strings.ReplaceAll(d.Body(), "\r\n", "\n"))
	dc.references(d.Body())
	probs := dc.Problems()
	for i := range probs {
		probs[i].Agent = s.ID
	}
	return s, probs
}

// identity settles the skill's ID from its name and folder.
func (dc *skillDecoder) identity(nameLine int) {
	s, folder := dc.s, path.Base(dc.s.Dir)
	switch {
	case s.Name == "":
		s.ID = skillSlug(folder)
		dc.Add(registry.SeverityWarning, 1, "name", fmt.Sprintf("name is missing: the skill is named %q after its folder", s.ID))
	case !ValidName(s.Name):
		s.ID = skillSlug(folder)
		if ValidName(strings.ToLower(s.Name)) && !ValidName(s.ID) {
			s.ID = strings.ToLower(s.Name)
		}
		dc.Add(registry.SeverityWarning, nameLine, "name", fmt.Sprintf("name %q breaks the Agent Skills rule (1-%d characters of a-z, 0-9 and single hyphens): the skill is named %q", s.Name, MaxName, s.ID))
	default:
		s.ID = s.Name
	}
	if s.Name != "" && s.Name != folder {
		dc.Add(registry.SeverityWarning, nameLine, "name", fmt.Sprintf("name %q differs from its folder %q (the Agent Skills spec asks them to match)", s.Name, folder))
	}
	if s.ID == "" {
		dc.Add(registry.SeverityError, max(nameLine, 1), "name", "neither name nor the folder's name gives the skill an id: rename the folder")
	}
}

// checkLengths warns about the spec's length limits.
func (dc *skillDecoder) checkLengths(descLine, compatLine int) {
	if n := utf8.RuneCountInString(dc.s.Description); n > MaxDescription {
		dc.Add(registry.SeverityWarning, descLine, "description", fmt.Sprintf("description is %d characters; the Agent Skills spec allows %d (every agent that may use the skill reads it)", n, MaxDescription))
	}
	if n := utf8.RuneCountInString(dc.s.Compatibility); n > MaxCompatibility {
		dc.Add(registry.SeverityWarning, compatLine, "compatibility", fmt.Sprintf("compatibility is %d characters; the Agent Skills spec allows %d", n, MaxCompatibility))
	}
}

// skillSlug is Slug within the spec's alphabet: '.' and '_' become '-'.
func skillSlug(s string) string {
	return registry.Slug(strings.NewReplacer("_", "-", ".", "-").Replace(s))
}
