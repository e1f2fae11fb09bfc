package skills

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/delegation/hooks"
	"github.com/agentry/agentry/registry/plugin"
	"github.com/agentry/agentry/web/core"
)

// PluginsView is /plugins.
type PluginsView struct {
	Plugins []PluginRow
	Error   string
}

// PluginRow is one installed plugin with what its hooks and servers run.
type PluginRow struct {
	plugin.Installed
	HookLines, ServerLines []string
}

// PluginsPage is GET /plugins.
func (p *Pages) PluginsPage(c echo.Context) error {
	v := PluginsView{}
	if p.cfg.Plugins != nil {
		list, err := p.cfg.Plugins.List()
		if err != nil {
			v.Error = err.Error()
		}
		for _, in := range list {
			r := PluginRow{Installed: in}
			hs, _ := p.cfg.Plugins.Hooks(in.Name)
			for _, h := range hs {
				line := h.String()
				if why := hooks.NeverRuns(h.Event, h.Matcher, h.If); why != "" {
					line += " (" + why + ")"
				}
				r.HookLines = append(r.HookLines, line)
			}
			servers, _ := p.cfg.Plugins.MCPServers(in.Name)
			for _, s := range servers {
				r.ServerLines = append(r.ServerLines, s.Name+": "+strings.TrimSpace(s.Command+" "+strings.Join(s.Args, " ")))
			}
			v.Plugins = append(v.Plugins, r)
		}
	}
	return core.Render(c, http.StatusOK, PluginsPage(core.Page(c, "Plugins", "/skills"), v))
}

// installed is nil when the plugin called name is installed, else what is
// missing (a 404), so the enable form's answer names it as other pages do.
func (p *Pages) installed(name string) error {
	list, err := p.cfg.Plugins.List()
	if err != nil {
		return fmt.Errorf("list plugins: %w", err)
	}
	if !slices.ContainsFunc(list, func(i plugin.Installed) bool { return i.Name == name }) {
		return core.NotFound("plugin", name)
	}
	return nil
}

// Enable is POST /plugins/NAME/enable: what=hooks|mcp, on=true|false.
// Hooks and servers take effect from the next serve or run on.
func (p *Pages) Enable(c echo.Context) error {
	if p.cfg.Plugins == nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "this server has no plugins folder")
	}
	what, on := c.FormValue("what"), c.FormValue("on") == "true"
	if what != "hooks" && what != "mcp" {
		return echo.NewHTTPError(http.StatusBadRequest, "what must be hooks or mcp")
	}
	if err := p.installed(c.Param("name")); err != nil {
		return err
	}
	if err := p.cfg.Plugins.Enable(c.Param("name"), what == "hooks", what == "mcp", on); err != nil {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, err.Error())
	}
	return c.Redirect(http.StatusSeeOther, "/plugins#plugin-"+c.Param("name"))
}
