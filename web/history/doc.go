// Package history is the web UI's History page family (docs/versions.md):
// an agent's (a skill's, a workflow's) versions newest first, with the
// runs that used each (agents and workflows: runs record an agent's
// version on its invoke_agent spans and a workflow's on its run's
// invoke_workflow root, trace.VersionSpans; a skill's is not recorded); a
// side-by-side diff of any two (frontmatter and body apart), which may be
// a commit of the file when the agents folder is a git repository; and
// "restore this version", a normal compare-and-swap save of the file as
// the page saw it, recorded as a new version that says what it restores.
//
// One Pages serves one kind of file (Config.Kind and Base: agents at
// /agents/NAME/history, skills at /skills/ID/history, workflows at
// /workflows/STEM/history); Config.Current says where a name's file is
// now, what its versions are listed under (a workflow's name, not the
// stem its page is addressed by) and who may save a restore into it;
// Config.Gone, which file was at an address that has none now (a deleted
// workflow's, found by the path of its newest version).
//
// It reads versions through the small Versions interface
// (trace.VersionStore satisfies it), git commits through registry/git, and
// saves through Files (the folder's web writer).
package history
