package registry

import (
	"path"
	"regexp"
	"strings"
)

// IDPattern is the one definition of a valid agent id: lowercase letters,
// digits, '.', '_' and '-', 1-64 characters, starting with a letter or
// digit. Dots are allowed because real agents carry versions in their names
// (powershell-5.1-expert). Other packages (the web form) use ValidName or
// this pattern instead of their own copy.
const IDPattern = `[a-z0-9][a-z0-9._-]{0,63}`

var idRE = regexp.MustCompile(`^` + IDPattern + `$`)

// ValidName reports whether name is a valid agent id (IDPattern).
func ValidName(name string) bool { return idRE.MatchString(name) }

// vsCodeSuffixes are the file endings of VS Code custom agents, which VS
// Code names by their file: name: there is only a display name.
var vsCodeSuffixes = []string{".agent.md", ".chatmode.md"}

// vsCodeAgentsDir is VS Code's workspace folder of custom agents, at the
// top of the agents folder: VS Code reads every *.md file there as one.
const vsCodeAgentsDir = ".github/agents/"

// isVSCodeFile reports whether the file is a VS Code custom agent
// (*.agent.md, *.chatmode.md, any *.md in .github/agents).
func isVSCodeFile(file string) bool { return VSCodeSuffix(file) != "" }

// VSCodeSuffix is the ending that makes file a VS Code custom agent
// (".agent.md", ".chatmode.md", or ".md" in .github/agents), or "" for any
// other file. A renamed file keeps it, so it stays named by its file.
func VSCodeSuffix(file string) string {
	for _, s := range vsCodeSuffixes {
		if strings.HasSuffix(file, s) {
			return s
		}
	}
	if strings.HasPrefix(file, vsCodeAgentsDir) && strings.HasSuffix(file, ".md") {
		return ".md"
	}
	return ""
}

// NameFromFile derives an agent id from a file path: the base name without
// ".agent.md", ".chatmode.md" or ".md", lowercased and slugged
// ("C# Expert.agent.md" → "c-expert"). It is "" when nothing usable is left.
func NameFromFile(file string) string {
	base := path.Base(strings.ReplaceAll(file, "\\", "/"))
	for _, s := range append(vsCodeSuffixes, ".md") {
		if b, ok := strings.CutSuffix(base, s); ok {
			base = b
			break
		}
	}
	return Slug(base)
}

// Slug turns a display name into an id: lowercase, every run of other
// characters replaced by one '-', no leading or trailing separator, at most
// 64 characters.
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			if r == '-' && (dash || b.Len() == 0) {
				continue
			}
			b.WriteRune(r)
			dash = r == '-'
		default:
			if b.Len() > 0 && !dash {
				b.WriteByte('-')
				dash = true
			}
		}
	}
	out := strings.TrimLeft(b.String(), "._-")
	if len(out) > 64 {
		out = out[:64]
	}
	return strings.TrimRight(out, "._-")
}

// nameLineRE finds a top-level name: line, to attribute a file that cannot
// be parsed to the agent it means to define.
var nameLineRE = regexp.MustCompile(`(?m)^name:[ \t]*["']?(` + IDPattern + `)["']?[ \t]*\r?$`)

// guessID returns the id a file that does not parse would define: its
// name: line when that is a valid id (and not a VS Code file), else the
// file name's. `agentry run X` can then report X's broken file.
func guessID(file, text string) string {
	if !isVSCodeFile(file) {
		if m := nameLineRE.FindStringSubmatch(text); m != nil {
			return m[1]
		}
	}
	return NameFromFile(file)
}

// NormalizeItemID turns Claude Code's "plugin:name" into agentry's
// "plugin.name"; other IDs are returned as they are.
func NormalizeItemID(id string) string {
	if p, n, ok := strings.Cut(id, ":"); ok && p != "" && n != "" && !strings.Contains(n, ":") {
		return p + "." + n
	}
	return id
}
