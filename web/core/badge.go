package core

import (
	"context"

	"github.com/labstack/echo/v4"
)

// Counter counts what waits for a person behind a nav entry (pending
// approvals), for the badge beside it.
type Counter func(ctx context.Context) (int, error)

const badgesKey = "agentry.nav-badges"

// NavBadges makes every page's nav show counts beside the entries of
// counts (by Href). The middleware only hands the counters to the request;
// a count runs when a page with the nav renders (PageView.Badge), never for
// static files, event streams or fragments.
func NavBadges(e *echo.Echo, counts map[string]Counter) {
	e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.Set(badgesKey, counts)
			return next(c)
		}
	})
}

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
