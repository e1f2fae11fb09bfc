package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// ErrRefused is wrapped by every refusal, so callers can tell a refused
// address from a network failure.
var ErrRefused = errors.New("refused: not a public network address")

// RefusedError says which address was refused and why.
type RefusedError struct {
	Host  string     // the host name asked for ("" when the caller dialled an IP)
	Addr  netip.Addr // the address that would have been dialled
	Class string     // "loopback", "private", "metadata", ...
}

func (e *RefusedError) Error() string {
	who := e.Addr.String()
	if e.Host != "" && e.Host != who {
		who = fmt.Sprintf("%s (%s)", e.Host, e.Addr)
	}
	return fmt.Sprintf("refused to connect to %s: a %s address, outside the public internet "+
		"(allow it with web.allow_hosts or web.allow_networks)", who, e.Class)
}

// Unwrap makes errors.Is(err, ErrRefused) true.
func (e *RefusedError) Unwrap() error { return ErrRefused }

// Resolver looks up a host's addresses; *net.Resolver is one. Tests give
// their own so that a public-looking name can resolve to 127.0.0.1.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Config says which non-public destinations are allowed after all.
type Config struct {
	// AllowHosts are host names allowed whatever they resolve to: an exact
	// name (case-insensitive, a trailing dot ignored) or "*.example.com" for
	// every name below example.com.
	AllowHosts []string
	// AllowCIDRs are address ranges allowed although non-public, as CIDR
	// ("10.1.0.0/16", "fd12::/64") or a single address ("127.0.0.1").
	AllowCIDRs []string
	// Resolver resolves host names; nil means net.DefaultResolver.
	Resolver Resolver
	// DialTimeout bounds one connection attempt; 0 means 10s.
	DialTimeout time.Duration
}

// Guard dials only addresses the rule allows. It is safe for concurrent use.
type Guard struct {
	hosts    map[string]bool
	suffixes []string // from "*.example.com": ".example.com"
	nets     []netip.Prefix
	resolver Resolver
	checked  net.Dialer // re-checks the dialled address in Control
	plain    net.Dialer // for allowed host names
}

// New checks cfg and returns its Guard. A malformed host or range is an
// error naming it.
func New(cfg Config) (*Guard, error) {
	g := &Guard{hosts: map[string]bool{}, resolver: cfg.Resolver}
	if g.resolver == nil {
		g.resolver = net.DefaultResolver
	}
	for _, h := range cfg.AllowHosts {
		h = normHost(h)
		switch {
		case strings.HasPrefix(h, "*.") && len(h) > 2 && !strings.Contains(h[2:], "*"):
			g.suffixes = append(g.suffixes, h[1:])
		case h == "" || strings.ContainsAny(h, "*/: "):
			return nil, fmt.Errorf("allowed host %q: want a host name or *.domain", h)
		default:
			g.hosts[h] = true
		}
	}
	for _, s := range cfg.AllowCIDRs {
		p, err := parsePrefix(s)
		if err != nil {
			return nil, err
		}
		g.nets = append(g.nets, p)
	}
	timeout := cfg.DialTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	g.plain = net.Dialer{Timeout: timeout}
	g.checked = net.Dialer{Timeout: timeout, Control: g.Control}
	return g, nil
}

func parsePrefix(s string) (netip.Prefix, error) {
	s = strings.TrimSpace(s)
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked(), nil
	}
	if a, err := netip.ParseAddr(s); err == nil {
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	return netip.Prefix{}, fmt.Errorf("allowed network %q: want a CIDR range such as 10.0.0.0/8 or an address", s)
}

func normHost(h string) string { return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(h)), ".") }

// HostAllowed reports whether host is allowed by name.
func (g *Guard) HostAllowed(host string) bool {
	host = normHost(host)
	if g.hosts[host] {
		return true
	}
	for _, s := range g.suffixes {
		if strings.HasSuffix(host, s) {
			return true
		}
	}
	return false
}

// Check returns a *RefusedError when ip is non-public and no allowed range
// holds it, else nil. host only names the refusal.
func (g *Guard) Check(host string, ip netip.Addr) error {
	ip = ip.Unmap().WithZone("")
	for _, p := range g.nets {
		if p.Contains(ip) {
			return nil
		}
	}
	if class := Classify(ip); class != "" {
		return &RefusedError{Host: host, Addr: ip, Class: class}
	}
	return nil
}

// Control is a net.Dialer Control function that refuses a socket whose
// address Check refuses. It sees only the address, so names allowed by
// AllowHosts must be dialled without it (DialContext does that).
func (g *Guard) Control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot check address %q: %v", ErrRefused, address, err)
	}
	return g.Check("", ap.Addr())
}

// DialContext connects like net.Dialer.DialContext, but only to allowed
// addresses: it resolves a name itself, dials each allowed address in turn,
// and returns the refusal when no address was allowed.
func (g *Guard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	byName := g.HostAllowed(host)
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else if ips, err = g.resolver.LookupNetIP(ctx, ipNetwork(network), host); err != nil {
		return nil, err
	}
	var firstErr error
	for _, ip := range ips {
		if !byName {
			if err := g.Check(host, ip); err != nil {
				firstErr = cmp(firstErr, err)
				continue
			}
		}
		d := &g.checked
		if byName {
			d = &g.plain
		}
		conn, err := d.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		firstErr = cmp(firstErr, err)
		if ctx.Err() != nil {
			break
		}
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("lookup %s: no addresses", host)
	}
	return nil, firstErr
}

func cmp(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

func ipNetwork(network string) string {
	switch network {
	case "tcp4", "udp4":
		return "ip4"
	case "tcp6", "udp6":
		return "ip6"
	}
	return "ip"
}

// Transport is a clone of http.DefaultTransport that dials through g and
// uses no proxy.
func (g *Guard) Transport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.DialContext = g.DialContext
	t.DialTLSContext = nil
	return t
}

// Client is an http.Client over Transport that follows at most 10
// redirects, each to an http or https URL (and dialled through g).
func (g *Guard) Client() *http.Client {
	return &http.Client{Transport: g.Transport(), CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return fmt.Errorf("redirect to %q refused: not http or https", req.URL.Scheme)
		}
		return nil
	}}
}
