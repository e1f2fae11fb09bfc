// agentry's code editor: every <textarea data-editor="..."> on the page becomes
// a CodeMirror 6 editor. The textarea stays in the form, hidden, and holds the
// editor's text at every change, so the form posts exactly what was typed and
// a page without JavaScript (or without this file) keeps the plain textarea.
// See docs/web.md, "Code editors", for the attributes a page may set.
import { EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter,
  highlightSpecialChars, drawSelection, rectangularSelection, dropCursor } from "@codemirror/view";
import { EditorState, Compartment } from "@codemirror/state";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { HighlightStyle, syntaxHighlighting, indentOnInput, bracketMatching, foldGutter, foldKeymap } from "@codemirror/language";
import { searchKeymap, highlightSelectionMatches } from "@codemirror/search";
import { lintGutter, setDiagnostics, lintKeymap } from "@codemirror/lint";
import { markdown } from "@codemirror/lang-markdown";
import { yaml, yamlFrontmatter } from "@codemirror/lang-yaml";
import { tags as t } from "@lezer/highlight";

// languages maps data-editor values to CodeMirror languages. "frontmatter" is
// an agent file: YAML between the --- lines, Markdown below.
const languages = {
  markdown: () => markdown(),
  yaml: () => yaml(),
  frontmatter: () => yamlFrontmatter({ content: markdown() }),
};

// Colours come from the site's CSS variables (web/core/static/style.css),
// which inherit into the shadow root, so dark mode needs nothing here.
const highlight = HighlightStyle.define([
  { tag: t.heading, fontWeight: "bold", color: "var(--accent)" },
  { tag: t.strong, fontWeight: "bold" },
  { tag: t.emphasis, fontStyle: "italic" },
  { tag: t.strikethrough, textDecoration: "line-through" },
  { tag: [t.link, t.url], color: "var(--accent)", textDecoration: "underline" },
  { tag: [t.keyword, t.propertyName, t.definition(t.propertyName), t.tagName], color: "var(--accent)" },
  { tag: [t.string, t.special(t.string), t.monospace], color: "var(--ok)" },
  { tag: [t.number, t.bool, t.null, t.atom], color: "var(--warn)" },
  { tag: [t.comment, t.meta, t.processingInstruction, t.contentSeparator, t.punctuation, t.quote], color: "var(--muted)" },
  { tag: t.invalid, color: "var(--bad)" },
]);

const theme = EditorView.theme({
  "&": { color: "var(--fg)", backgroundColor: "var(--card)", fontSize: "13px", maxHeight: "70vh" },
  "&.cm-focused": { outline: "none" }, // the host's :focus-within outline in style.css shows focus
  ".cm-scroller": { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace", lineHeight: "1.5" },
  ".cm-content": { caretColor: "var(--fg)" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--fg)" },
  ".cm-gutters": { backgroundColor: "var(--bg)", color: "var(--muted)", borderRight: "1px solid var(--line)" },
  ".cm-activeLine": { backgroundColor: "color-mix(in srgb, var(--accent) 7%, transparent)" },
  ".cm-activeLineGutter": { backgroundColor: "color-mix(in srgb, var(--accent) 14%, transparent)", color: "var(--fg)" },
  "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection":
    { backgroundColor: "color-mix(in srgb, var(--accent) 30%, transparent)" },
  ".cm-selectionMatch": { backgroundColor: "color-mix(in srgb, var(--warn) 25%, transparent)" },
  ".cm-tooltip": { backgroundColor: "var(--card)", color: "var(--fg)", border: "1px solid var(--line)" },
  ".cm-panels": { backgroundColor: "var(--bg)", color: "var(--fg)" },
  ".cm-lintRange-error": { backgroundColor: "color-mix(in srgb, var(--bad) 12%, transparent)" },
  ".cm-lintRange-warning": { backgroundColor: "color-mix(in srgb, var(--warn) 12%, transparent)" },
  ".cm-diagnostic-error": { borderLeftColor: "var(--bad)" },
  ".cm-diagnostic-warning": { borderLeftColor: "var(--warn)" },
  ".cm-readonly .cm-cursor": { display: "none" },
});

// The built-in parts (search panel, tooltips) pick light or dark colours from
// this facet; it follows the system setting, as style.css does.
const darkQuery = window.matchMedia("(prefers-color-scheme: dark)");
const dark = new Compartment();

// problems reads data-problems: [{line, severity, message}], one-based lines
// of the textarea's text. Lines past the end mark the last line. The mark
// starts after the line's indentation, so the underline is under the text.
function problems(state, ta) {
  let list;
  try { list = JSON.parse(ta.getAttribute("data-problems") || "[]"); } catch { return []; }
  if (!Array.isArray(list)) return [];
  return list.filter((p) => p && p.line > 0).map((p) => {
    const line = state.doc.line(Math.min(p.line, state.doc.lines));
    const severity = ["error", "warning", "info"].includes(p.severity) ? p.severity : "error";
    const indent = line.text.length - line.text.trimStart().length;
    return { from: line.from + indent, to: line.to, severity, message: String(p.message || "") };
  });
}

// labelOf finds the textarea's accessible name, for the editor's content.
function labelOf(ta) {
  if (ta.getAttribute("aria-label")) return ta.getAttribute("aria-label");
  const l = ta.labels && ta.labels[0];
  return l ? l.textContent.trim() : "";
}

function mount(ta) {
  const lang = languages[ta.getAttribute("data-editor")];
  if (!lang || ta.hasAttribute("data-editor-mounted")) return;
  const host = document.createElement("div");
  host.className = "code-editor";
  const id = ta.getAttribute("data-testid");
  if (id) host.setAttribute("data-testid", "editor-" + id);
  ta.after(host);
  const root = host.attachShadow({ mode: "open" });
  const readOnly = ta.readOnly || ta.disabled;
  const rows = Math.max(ta.rows || 10, 4);
  const view = new EditorView({
    root,
    parent: root,
    state: EditorState.create({
      doc: ta.value,
      extensions: [
        lineNumbers(), foldGutter(), lintGutter(), highlightActiveLineGutter(), highlightSpecialChars(),
        history(), drawSelection(), dropCursor(), indentOnInput(), bracketMatching(),
        rectangularSelection(), highlightActiveLine(), highlightSelectionMatches(),
        keymap.of([indentWithTab, ...defaultKeymap, ...historyKeymap, ...searchKeymap, ...foldKeymap, ...lintKeymap]),
        lang(), syntaxHighlighting(highlight), theme, EditorView.lineWrapping,
        EditorView.theme({ ".cm-content, .cm-gutter": { minHeight: rows * 1.5 + "em" } }),
        dark.of(EditorView.darkTheme.of(darkQuery.matches)),
        EditorState.readOnly.of(readOnly),
        EditorView.editable.of(!ta.disabled),
        EditorView.contentAttributes.of({ "aria-label": labelOf(ta), ...(readOnly ? { "aria-readonly": "true" } : {}) }),
        EditorView.editorAttributes.of({ class: readOnly ? "cm-readonly" : "" }),
        EditorView.updateListener.of((u) => {
          if (!u.docChanged) return;
          ta.value = u.state.doc.toString();
          // htmx and other listeners (the live preview) see the change as typing.
          ta.dispatchEvent(new Event("input", { bubbles: true }));
        }),
      ],
    }),
  });
  view.dispatch(setDiagnostics(view.state, problems(view.state, ta)));
  ta.setAttribute("data-editor-mounted", "");
  ta.hidden = true;
  // A fallback shown for pages without the editor (a numbered listing) goes.
  const fallback = ta.getAttribute("data-editor-hides");
  if (fallback && document.getElementById(fallback)) document.getElementById(fallback).hidden = true;
  if (ta.labels) for (const l of ta.labels) l.addEventListener("click", () => view.focus());
  darkQuery.addEventListener("change", (e) => view.dispatch({ effects: dark.reconfigure(EditorView.darkTheme.of(e.matches)) }));
  // A form reset puts the textarea back; the editor follows.
  if (ta.form) ta.form.addEventListener("reset", () => setTimeout(() => {
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: ta.value } });
  }));
  host.editorView = view;
}

function mountAll(scope) {
  scope.querySelectorAll("textarea[data-editor]").forEach(mount);
}

mountAll(document);
// Pages that swap in new markup with htmx get editors there too.
document.addEventListener("htmx:afterSettle", (e) => mountAll(e.target));
