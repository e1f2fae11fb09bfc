package registry

// Source says who made a change to a file, for the version it becomes
// (docs/versions.md).
type Source string

// Sources of a change.
const (
	// SourceFiles is a write the folder watcher saw, or a change found when
	// a command loaded the folder after it was made while nothing ran.
	SourceFiles Source = "filesystem"
	SourceWeb   Source = "web" // a save in the browser
	SourceAPI   Source = "api" // a save through the JSON API
	SourceCLI   Source = "cli" // agentry history --restore
)

// Kinds of versioned files, the Kind of a FileChanged.
const (
	KindAgent    = "agent"
	KindWorkflow = "workflow"
	KindSkill    = "skill"
)

// FileChanged is one change to a file agentry keeps versions of: an agent,
// a workflow or a skill. Whatever notices a change (the folder watcher, a
// save, a command loading its folder) hands one to an OnChange hook, so the
// versions of every kind are recorded by one piece of code that knows
// nothing of where the change came from.
type FileChanged struct {
	Kind string // KindAgent, KindWorkflow, KindSkill
	// Name is what the file defines (the agent's id, the workflow's name);
	// versions are listed by it, so a renamed file keeps its history.
	Name string
	// Path is the file, relative to its folder and slash-separated.
	Path string
	// Data is the new content; nil when Deleted.
	Data    []byte
	Deleted bool
	Source  Source
	// Note, when set, replaces the diff summary's first words: "restore of
	// 3f2a9c1".
	Note string
}

// OnChange receives the changes of versioned files. It is called after the
// change is in place (the file written, the snapshot replaced), on the
// goroutine that made it; it must not block for long.
type OnChange func(FileChanged)

// NameOf returns the id an agent file at path with content data defines
// (its name: when that is a valid id, else its file name's), without
// decoding it, so a broken file's versions still line up with the agent's.
func NameOf(path string, data []byte) string { return guessID(path, string(data)) }
