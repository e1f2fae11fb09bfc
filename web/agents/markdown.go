package agents

import (
	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/web/core"
)

// Preview renders the editor's body field for the live preview pane
// (core.Markdown: raw HTML dropped, so a prompt never runs script).
func (s *Pages) Preview(c echo.Context) error {
	html, err := core.Markdown(c.FormValue("body"))
	if err != nil {
		return err
	}
	return core.Render(c, 200, html)
}
