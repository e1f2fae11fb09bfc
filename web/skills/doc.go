// Package skills is the web UI's page family for Agent Skills, slash
// commands and plugins (DESIGN §15): /skills lists every skill with the
// plugin it comes from and its problems (file:line: reason), and every
// command with a Run form; /skills/ID shows a skill's folder (its files,
// text ones viewable, binary ones only listed) and edits its SKILL.md;
// /plugins lists the installed plugins with what their hooks and MCP
// servers would run, and enables or disables them.
//
// Decisions:
//   - The skill editor is the agent editor's way of saving: the
//     frontmatter fields are set through registry.Document, which rewrites
//     only the entries that changed (the file keeps its dialect, comments
//     and unknown keys), the body goes into the same Markdown editor, and
//     the save is the folder's compare-and-swap, refused with both
//     versions when the file changed on disk.
//   - An installed plugin's skills are copies the next `plugins update`
//     replaces: their editor is read-only and says so.
//   - Enabling a plugin's hooks or servers is a form on the page that
//     shows the commands they run, so nobody enables what they have not
//     seen; like every form here it carries the CSRF token.
package skills
