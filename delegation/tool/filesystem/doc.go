// Package filesystem is the built-in `filesystem` tool group: read_file,
// list_dir, glob, grep, write_file and edit_file, all confined to one
// workspace folder. Confinement rests on os.Root, which refuses any path that
// leaves the folder, through `..` or through a symbolic link; absolute paths
// are refused before that, so a model gets one clear error for every escape.
package filesystem
