package core

import (
	"context"
	"encoding/json"

	"github.com/labstack/echo/v4"
)

// PageView is what the shared layout needs: the title, which nav entry is
// current, and the CSRF token for forms and htmx requests.
type PageView struct {
	Title string
	Nav   string // the Href of the current nav entry, "" for none
	CSRF  string
	// LiveNav makes the nav's badges follow live (polled, see NavBadges):
	// set by pages that already update live, such as a going run's
	// timeline, where an approval can be asked while the page is open.
	LiveNav bool

	ctx    context.Context    // the request's, for badge counts
	badges map[string]Counter // see NavBadges
}

// NavItem is one entry of the top navigation.
type NavItem struct {
	Label, Href string
}

// NavItems is the top navigation, in order. Every page shows all of them.
var NavItems = []NavItem{
	{"Agents", "/agents"},
	{"Graph", "/graph"},
	{"Permissions", "/permissions"},
	{"Workflows", "/workflows"},
	{"Skills", "/skills"},
	{"Runs", "/runs"},
	{"Evals", "/evals"},
	{"Approvals", "/approvals"},
}

// Page builds the layout's view model for a request.
func Page(c echo.Context, title, nav string) PageView {
	badges, _ := c.Get(badgesKey).(map[string]Counter)
	return PageView{Title: title, Nav: nav, CSRF: CSRFToken(c), ctx: c.Request().Context(), badges: badges}
}

// HTMXHeaders is the hx-headers value that makes every htmx request carry the CSRF token.
func (p PageView) HTMXHeaders() string {
	b, _ := json.Marshal(map[string]string{csrfHeader: p.CSRF})
	return string(b)
}

// ErrorView is an error page: the status and a sentence for a person.
type ErrorView struct {
	Status  int
	Title   string
	Message string
	Back    NavItem // the list the failed address belongs to (sectionOf)
}
