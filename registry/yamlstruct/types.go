package yamlstruct

// Options say where the mapping is and how its scalars are read.
type Options struct {
	// Path names the mapping in messages and Problem.Path ("subagents",
	// "steps[2]"); "" for a file's top level.
	Path string
	// LineOffset is added to every line Decode reports or records: where
	// the YAML starts in its file, less one (a frontmatter after its ---).
	LineOffset int
	// Lenient reads scalars by their text (see the package doc).
	Lenient bool
}

// Problem is a key or a value Decode could not take.
type Problem struct {
	Line    int
	Path    string // the key's path: "retry.backoff", "steps[2].id"
	Key     string // the key itself: "backoff"
	Message string // what is wrong, naming Path
	// Unknown marks a key no field takes; Message then lists those that do.
	Unknown bool
}

// At is a value with the line of its key (of the item, in a list); Line is
// 0 when the key is absent or its value null.
type At[T any] struct {
	Value T
	Line  int
}

// Set reports whether the file gave a value.
func (a At[T]) Set() bool { return a.Line > 0 }

func (a *At[T]) at(line int) any { a.Line = line; return &a.Value }

// lined is At[T] for any T.
type lined interface{ at(line int) any }

// Entry is one key of a mapping read into a []Entry[T], in file order.
type Entry[T any] struct {
	Key   string
	Line  int
	Value T
}

func (e *Entry[T]) entry(key string, line int) any { e.Key, e.Line = key, line; return &e.Value }

// keyed is Entry[T] for any T.
type keyed interface {
	entry(key string, line int) any
}
