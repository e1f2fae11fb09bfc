// Package workflows is the web UI's workflows page family: the list of the
// workflows folder with each file's problems (file:line: reason), kept live
// by the folder watcher; a workflow's page (the explain text and the text
// step graph, with a slot for the SVG diagram); the YAML editor with
// validation and the same compare-and-swap conflict protection as the
// agent editor; and the start form generated from the workflow's inputs,
// which starts a run and opens its timeline.
//
// Handlers are methods of Pages; web/routes.go maps URLs to them. A workflow
// is addressed by its file name without extension (/workflows/NAME), which
// is unique in the flat folder and stays usable while the file is broken.
//
// Decisions:
//   - The editor is a <textarea data-editor="yaml"> whose data-problems
//     attribute holds the validator's problems as JSON
//     ([{"line","severity","message"}]): a script may turn it into a code
//     editor with markers at those lines; without one it is a plain
//     textarea that saves as is.
//   - A save is checked twice: against the hash the editor was opened with
//     (the file changed since?) and by the folder's compare-and-swap on
//     disk. A refusal shows both versions with the disk's hash, so pressing
//     Save again overwrites on purpose. The folder re-reads a refused file,
//     so "on disk now" is the other program's version even when the watcher
//     has not reloaded yet.
//   - The start form offers exactly the models the runs form offers
//     (core.Models); the run is started through runs' Launch so the
//     timeline's Cancel reaches it.
package workflows
