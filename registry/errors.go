package registry

import "errors"

// Sentinel errors that callers branch on; the web maps them to HTTP statuses.
var (
	// ErrConflict means the file on disk changed since the caller read it.
	ErrConflict = errors.New("file changed on disk since it was opened")
	// ErrInvalidPath means a path is not a clean relative .md path inside the folder.
	ErrInvalidPath = errors.New("invalid agent file path")
	// ErrExists means the target file already exists.
	ErrExists = errors.New("file already exists")
	// ErrNotFound means there is no such file.
	ErrNotFound = errors.New("no such agent file")
	// ErrUnknownAgent means no served agent has that id; Snapshot.ProblemsFor
	// says why when a broken file would define it.
	ErrUnknownAgent = errors.New("unknown agent")
)
