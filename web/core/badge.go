package core

import (
	"context"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"
)

// Counter counts what waits for a person behind a nav entry (pending
// approvals), for the badge beside it.
type Counter func(ctx context.Context) (int, error)

const badgesKey = "agentry.nav-badges"

// NavBadges makes every page's nav show counts beside the entries of
// counts (by Href). The middleware only hands the counters to the request;
// a count runs when a page with the nav renders (PageView.Badge), never for
// static files, event streams or fragments. It also serves
// GET /nav/badge?for=HREF, the badge alone, which the nav of a live page
// (PageView.LiveNav) polls so the count follows without a reload.
func NavBadges(e *echo.Echo, counts map[string]Counter) {
	e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.Set(badgesKey, counts)
			return next(c)
		}
	})
	e.GET(navBadgePath, func(c echo.Context) error {
		href := c.QueryParam("for")
		if counts[href] == nil {
			return NotFound("nav badge", href)
		}
		p := Page(c, "", "")
		p.LiveNav = true
		c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
		return Render(c, http.StatusOK, navBadge(p, href))
	})
}

// navBadgePath is where a live nav polls its badges.
const navBadgePath = "/nav/badge"

// navPoll is how often a live nav polls a badge: one small count a tab,
// skipped while the tab is hidden (app.js, data-poll-visible).
const navPoll = "every 5s"

// polls reports whether the badge of href follows live on this page.
func (p PageView) polls(href string) bool { return p.LiveNav && p.badges[href] != nil }

// BadgeURL is the address a live nav polls for the badge of href.
func BadgeURL(href string) string { return navBadgePath + "?for=" + url.QueryEscape(href) }

// Badge is the count beside the nav entry href, 0 when there is none or
// it cannot be counted (the page must still render).
func (p PageView) Badge(href string) int {
	count := p.badges[href]
	if count == nil {
		return 0
	}
	n, err := count(p.ctx)
	if err != nil {
		return 0
	}
	return n
}
