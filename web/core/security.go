package core

import (
	"crypto/subtle"
	"mime"
	"net"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// Limits and names the security middleware shares with the components.
const (
	// MaxBody is the largest request body, 1 MiB as documented; agent files are small.
	MaxBody = 1 << 20
	// CSRFFieldName is the form field that carries the CSRF token.
	CSRFFieldName = "_csrf"
	// csrfHeader is the header htmx sends the token in (see the layout).
	csrfHeader = "X-CSRF-Token"

	maxBodySpec     = "1MiB"          // MaxBody as echo's BodyLimit spells it (binary units)
	tokenCookie     = "agentry_token" // remembers ?token= for the rest of the session
	tokenQueryParam = "token"
)

// contentSecurityPolicy allows only this server's own scripts and styles, so a
// script that slipped into rendered Markdown could not run even if goldmark let
// it through.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

// Install puts the chain every request passes on e: recover, secure headers,
// host check, token, body limit, CSRF. token "" serves loopback hosts only.
func Install(e *echo.Echo, token string) error {
	csrf, err := middleware.CSRFConfig{
		TokenLookup:    "header:" + csrfHeader + ",form:" + CSRFFieldName,
		CookieName:     "agentry_csrf",
		CookiePath:     "/",
		CookieHTTPOnly: true,
		CookieSameSite: http.SameSiteStrictMode,
		Skipper:        notForgeable,
	}.ToMiddleware()
	if err != nil {
		return err
	}
	e.Use(
		middleware.Recover(),
		middleware.SecureWithConfig(middleware.SecureConfig{
			XSSProtection: "0", ContentTypeNosniff: "nosniff", XFrameOptions: "DENY",
			ContentSecurityPolicy: contentSecurityPolicy, ReferrerPolicy: "same-origin",
		}),
		checkHost(token),
		checkToken(token),
		middleware.BodyLimit(maxBodySpec),
		csrf,
	)
	return nil
}

// checkHost refuses requests whose Host is not a loopback name when no token
// guards the server: a web page elsewhere could otherwise reach a local server
// through DNS rebinding and read its pages.
func checkHost(token string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if token == "" && !loopbackHost(c.Request().Host) {
				return echo.NewHTTPError(http.StatusForbidden, "this server answers only to localhost; start it with --token to serve other hosts")
			}
			return next(c)
		}
	}
}

// loopbackHost reports whether a Host header names this machine's loopback.
func loopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkToken lets a request through when the server has no token, or when the
// request carries it as a Bearer header, a cookie, or a ?token= query (which
// sets the cookie and redirects to the same URL without it, so the token does
// not linger in the address bar or history).
func checkToken(want string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if want == "" {
				return next(c)
			}
			r := c.Request()
			if q := r.URL.Query().Get(tokenQueryParam); q != "" && sameSecret(q, want) {
				c.SetCookie(&http.Cookie{Name: tokenCookie, Value: q, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
				u := *r.URL
				v := u.Query()
				v.Del(tokenQueryParam)
				u.RawQuery = v.Encode()
				return c.Redirect(http.StatusSeeOther, u.RequestURI())
			}
			if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && sameSecret(bearer, want) {
				return next(c)
			}
			if ck, err := r.Cookie(tokenCookie); err == nil && sameSecret(ck.Value, want) {
				return next(c)
			}
			return echo.NewHTTPError(http.StatusUnauthorized, "this server needs its access token: open the URL with ?token=… as printed by agentry serve")
		}
	}
}

func sameSecret(got, want string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// CSRFToken is the token a form must send back; the layout puts it in a meta
// tag and in htmx's headers.
func CSRFToken(c echo.Context) string {
	t, _ := c.Get("csrf").(string)
	return t
}

// notForgeable reports whether a page on another site could not have sent
// r without a CORS preflight, which this server never grants: a request
// with an Authorization header (the API's bearer token), a JSON body (the
// API, MCP and A2A), or a method other than GET, HEAD and POST. CSRF
// tokens guard what a cross-site page can send by itself, a form post;
// the programs that call the API, MCP and A2A have no form to read a
// token from, and the token check still applies to them.
func notForgeable(c echo.Context) bool {
	r := c.Request()
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodPost:
	default:
		return true
	}
	if r.Header.Get("Authorization") != "" {
		return true
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType))
	return mt == echo.MIMEApplicationJSON
}
