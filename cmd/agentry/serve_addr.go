package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/web"
)

// errExposed is returned for a non-loopback address without a token.
var errExposed = errors.New("refusing to listen on a non-loopback address without a token: " +
	"anyone who can reach it could edit your agents. Set --token (or AGENTRY_TOKEN), or use 127.0.0.1")

// checkListenAddr refuses a listen address that is not HOST:PORT, before
// checkExposure would call it one that other machines reach.
// setting names the flag and the key, as config.ServeConfig.CheckServe does.
func checkListenAddr(setting, addr string) error {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return fmt.Errorf("%s is %q: want HOST:PORT, such as 127.0.0.1:8080 (%v)", setting, addr, err)
	}
	return nil
}

// checkExposure refuses a non-loopback address without a token.
func checkExposure(addr, token string) error {
	if token != "" || isLoopback(addr) {
		return nil
	}
	return fmt.Errorf("%w (--addr %s)", errExposed, addr)
}

// isLoopback reports whether addr listens on this machine only. An empty
// host (":8080") listens on every interface, so it is not loopback.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkToken returns the access token without surrounding spaces, or an
// error when one is set but shorter than web.MinTokenLen: a token of one
// character (or " ") guards nothing.
func checkToken(token string) (string, error) {
	t := strings.TrimSpace(token)
	if token != "" && utf8.RuneCountInString(t) < web.MinTokenLen {
		return "", fmt.Errorf("the access token (--token, AGENTRY_TOKEN or token:) must have at least %d characters besides spaces, got %d; make one with: openssl rand -hex 16",
			web.MinTokenLen, utf8.RuneCountInString(t))
	}
	return t, nil
}

// browseURL is an address a person can open for listen address addr; with
// a token it carries it once, and the UI turns it into a cookie. An
// unspecified host (":8080", "0.0.0.0", "[::]") cannot be opened, so the
// URL names loopback and the note names this machine for other computers.
func browseURL(addr, token string, hostname func() (string, error)) (open, note string) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		host, port = addr, ""
	}
	query := ""
	if token != "" {
		query = "?token=" + url.QueryEscape(token)
	}
	at := func(h string) string {
		if port == "" {
			return "http://" + h + "/" + query
		}
		return "http://" + net.JoinHostPort(h, port) + "/" + query
	}
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		return at(host), ""
	}
	note = "listening on every network interface"
	if name, err := hostname(); err == nil && name != "" {
		note += "; from another computer open " + at(name)
	}
	return at("127.0.0.1"), note
}

// modelChoices are the model names the editor suggests: the default, the
// aliases, and the offline built-ins.
func modelChoices(cfg config.Config) []string {
	aliases := make([]string, 0, len(cfg.Models.Aliases))
	for alias := range cfg.Models.Aliases {
		aliases = append(aliases, alias)
	}
	slices.Sort(aliases)
	var out []string
	for _, m := range append([]string{"inherit", cfg.Models.Default, "demo"}, aliases...) {
		if m != "" && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}
