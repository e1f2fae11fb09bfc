// Package filesystem is the built-in `filesystem` tool group: read_file,
// list_dir, glob, grep, write_file and edit_file, all confined to one
// workspace folder. Confinement rests on os.Root, which refuses any path that
// leaves the folder, through `..` or through a symbolic link; absolute paths
// are refused before that, so a model gets one clear error for every escape.
//
// Inside the workspace, agentry's own state (tool.Protected: the trace
// database, the agents and workflows folders, the config file) is refused
// wherever it sits (ownstate.go): never written, and not read where it is
// hidden. Each access is checked on the path as written, resolved through
// its links, and again on the file actually opened, by its descriptor's
// path, so a link swapped in by a concurrent shell command cannot redirect
// a write.
package filesystem
