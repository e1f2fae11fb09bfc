// Package folder adapts a real directory of files to their Contents (the
// agent files of a registry.Registry, the workflow files of a
// workflow.Catalog): it loads the folder, watches it with fsnotify
// (subfolders included) so created, changed, renamed and deleted files show
// up within a fraction of a second, and writes files for the editor
// atomically with a conflict check. A subfolder renamed or moved within,
// out of or into the folder is followed: its old watches are dropped and
// the folder is rescanned, so its agents are served under their new paths.
//
// It exists apart from registry so the domain stays free of os and
// fsnotify; tests of the domain use fstest.MapFS instead. There is one
// watcher and one compare-and-swap save for every kind of file: a kind is a
// Contents (which paths are its files and folders, where changes go), so
// agents (Agents) and workflows share the debounce, the link confinement,
// the lock and the conflict checks below.
//
// Bursts of events (an editor writing a temp file, renaming it, touching
// it) are debounced: a reload happens once the folder has been quiet for
// the debounce interval (50 ms by default), or at the latest after eight
// intervals of continuous activity. Only the paths that events named are
// re-read; Sync re-reads everything.
//
// # Folders made after start
//
// Users create folders while serve runs: mkdir .claude/skills, agentry
// plugins add (which makes .agentry/plugins), a workflows/ or evals/ folder
// for the first time. OpenAwaiting opens such a folder whether or not it
// exists: a missing one is awaited by watching its nearest existing
// ancestor for the next part of the path (only that name's events count,
// so a busy project root costs nothing), moving the watch down part by
// part, and looking again after each new watch so a part made meanwhile
// is not missed. Once the folder is there it is opened exactly as
// OpenContents opens it (a symbolic link made as the folder is followed,
// as it is at start, and the files are confined to its target), and the
// awaiting Folder passes everything on to it. A link on the way that leads
// nowhere yet (agents -> ../shared/agents, made before the shared folder)
// is awaited at its target as well: the way there is watched the same way,
// and once the target is made the folder is opened through the link, as
// at start, confined to the target. Following it is no way out of the
// confinement: the confined folder is the one the configured path
// resolves to, whether at start or later, and links out of it are refused
// as ever. A save does not make a link's missing target (agentry writes
// through no link); it fails until the target is there. The files it held
// when it appeared are read once more as changes, so versioned contents
// record them as the edits they are. A save into a folder not
// made yet makes it (the editor's first skill or workflow); rename and
// delete there fail with fs.ErrNotExist. A folder removed later is handled
// as before: its files disappear and it is not awaited again. Folders that
// must exist (the agents folder of serve) use OpenContents, which refuses
// a missing one.
//
// # Which files, and links
//
// The folder may be a project root: the files are found where the tools
// that write them keep them (registry.IsAgentFile: plain *.md in the folder
// and its ordinary subfolders, .claude/agents, .github/agents/*.md,
// .github/chatmodes/*.chatmode.md), and exactly the folders that can hold
// them are watched (registry.IsAgentFolder), so .git and node_modules cost
// no watches.
//
// Files are read through an os.Root of the folder. A symbolic link whose
// target is outside the folder is never read: it is listed with a problem
// naming the target (ErrOutside), in loading, in watching and in Load
// (the non-watching loader for run and validate), so its content can reach
// neither the registry nor the raw view. Links within the folder work;
// linked folders are not descended into; saves never write through a link.
//
// A file that is a link within the folder is read again when its target
// is made or changes, wherever in the folder the target is: in a folder
// the watches do not cover (a hidden one), or not made yet (helper.md ->
// ../shared/helper.md, made before the shared folder). The way to each
// such target is watched as OpenAwaiting watches the way to a missing
// folder: the nearest folder on it that exists, the watch moving down as
// the folders are made, and the link read once more after each new watch
// (links.go). The confinement is the same as at start: a target that
// turns out to be outside the folder (a folder on the way made a link out
// of it) gets the link refused as soon as it appears, and nothing outside
// the folder is ever watched: a link whose target is outside stays
// refused, said as leading nowhere until its target exists and the next
// Sync says outside.
//
// # Saves are a compare-and-swap on disk
//
// Two agentry serves (or a serve and the CLI) may edit the same folder, and
// other programs write its files too. Write, Rename and Delete therefore
// never trust the registry's idea of a file: under a lock they re-read
// and hash what is on disk and refuse (registry.ErrConflict) when it is
// not the version the caller loaded. The lock is flock(2) on the folder
// itself (its directory), held only for the check and the swap, so saves
// of every agentry process are serialised and no lock file is left in the
// user's folder; a script that wants the same guarantee can take it too
// (flock agents/ CMD).
//
// A program that takes no lock can still write between the check and the
// swap. The new content is written and synced to a hidden temp file first,
// then swapped with the file in one step (renameat2 RENAME_EXCHANGE), so the
// displaced file survives under the temp name and is checked again: if it
// is not the version that was checked (another file was renamed over it, or
// it was rewritten in place), it is swapped back and the save refused.
// Delete and Rename move the file aside the same way and move it back on a
// mismatch. What remains is the few microseconds between a swap and its
// swap back: a program that reads the file just then, and saves on top of
// what it read, builds on a version that was never kept. POSIX has no
// rename-if-unchanged, so this window can be narrowed but not closed for
// programs that do not lock. Where RENAME_EXCHANGE is unavailable (other
// systems, some file systems) the save checks once more and renames.
//
// A refused save re-reads its file before it returns, so the caller's next
// look at the Contents shows the other program's version (the watcher may
// still be waiting out its debounce), and a conflict page compares the
// caller's version with what is really on disk.
//
// An empty hash on Delete or Rename is refused: it would skip the check.
// Agentry never writes through a symbolic link (ErrInvalidPath).
package folder
