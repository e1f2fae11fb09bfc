package agents

import (
	"bytes"
	"fmt"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/agentry/agentry/web/core"
)

// markdown renders agent prompts. It is built without html.WithUnsafe, so raw
// HTML is dropped and javascript: links are emptied: a prompt can never run
// script in the editor's preview. goldmark is safe for concurrent use.
var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM))

// renderMarkdown turns a prompt into HTML that is safe to embed as is.
func renderMarkdown(src string) (templ.Component, error) {
	var buf bytes.Buffer
	if err := markdown.Convert([]byte(src), &buf); err != nil {
		return nil, fmt.Errorf("render markdown: %w", err)
	}
	return templ.Raw(buf.String()), nil
}

// Preview renders the editor's body field for the live preview pane.
func (s *Pages) Preview(c echo.Context) error {
	html, err := renderMarkdown(c.FormValue("body"))
	if err != nil {
		return err
	}
	return core.Render(c, 200, html)
}
