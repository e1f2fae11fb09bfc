package httpapi

import (
	"net"
	"net/url"
	"strings"
)

// IsLocal reports whether baseURL points at this machine (localhost or a
// loopback address). Local model servers (Ollama, llama.cpp, vLLM on a
// laptop) usually need no API key, so providers do not insist on one there.
func IsLocal(baseURL string) bool {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
