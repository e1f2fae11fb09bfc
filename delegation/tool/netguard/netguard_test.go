package netguard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
)

func TestClassifyNamesEveryNonPublicRangeAndPassesPublicOnes(t *testing.T) {
	cases := []struct{ addr, want string }{
		{"127.0.0.1", "loopback"},
		{"127.255.0.9", "loopback"},
		{"::1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"},
		{"10.1.2.3", "private"},
		{"172.31.255.255", "private"},
		{"192.168.1.1", "private"},
		{"fd12:3456::1", "private"},
		{"169.254.169.254", "cloud metadata"},
		{"fd00:ec2::254", "cloud metadata"},
		{"169.254.1.1", "link-local"},
		{"fe80::1", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"100.64.0.1", "shared (CGNAT)"},
		{"100.127.255.254", "shared (CGNAT)"},
		{"224.0.0.1", "multicast"},
		{"ff02::1", "multicast"},
		{"0.0.0.0", "unspecified"},
		{"::", "unspecified"},
		{"255.255.255.255", "reserved"},
		{"64:ff9b::7f00:1", "loopback"}, // NAT64 of 127.0.0.1
		{"2002:a00:1::1", "private"},    // 6to4 of 10.0.0.1
		{"8.8.8.8", ""},
		{"172.32.0.1", ""},
		{"100.128.0.1", ""},
		{"2606:4700::1111", ""},
		{"64:ff9b::808:808", ""}, // NAT64 of 8.8.8.8
	}
	for _, c := range cases {
		if got := Classify(netip.MustParseAddr(c.addr)); got != c.want {
			t.Errorf("Classify(%s) = %q, want %q", c.addr, got, c.want)
		}
	}
}

func TestNewRefusesMalformedAllowEntriesNamingThem(t *testing.T) {
	for _, cfg := range []Config{
		{AllowCIDRs: []string{"10.0.0.0/33"}},
		{AllowCIDRs: []string{"intranet"}},
		{AllowHosts: []string{"http://example.com"}},
		{AllowHosts: []string{"a.*.example.com"}},
		{AllowHosts: []string{""}},
	} {
		_, err := New(cfg)
		bad := strings.Join(append(cfg.AllowCIDRs, cfg.AllowHosts...), "")
		if err == nil || !strings.Contains(err.Error(), "\""+bad+"\"") {
			t.Errorf("New(%+v) = %v, want an error naming %q", cfg, err, bad)
		}
	}
}

func TestAllowedRangesAndHostsLetNonPublicAddressesThrough(t *testing.T) {
	g, err := New(Config{AllowCIDRs: []string{"10.1.0.0/16", "127.0.0.1"}, AllowHosts: []string{"Intranet.Example.", "*.corp.test"}})
	if err != nil {
		t.Fatal(err)
	}
	for addr, allowed := range map[string]bool{"10.1.9.9": true, "10.2.0.1": false, "127.0.0.1": true, "::ffff:127.0.0.1": true, "127.0.0.2": false} {
		err := g.Check("", netip.MustParseAddr(addr))
		if (err == nil) != allowed || (err != nil && !errors.Is(err, ErrRefused)) {
			t.Errorf("Check(%s) = %v, want allowed %v", addr, err, allowed)
		}
	}
	for host, allowed := range map[string]bool{"intranet.example": true, "INTRANET.example.": true, "wiki.corp.test": true, "corp.test": false, "evilcorp.test": false, "example": false} {
		if got := g.HostAllowed(host); got != allowed {
			t.Errorf("HostAllowed(%q) = %v, want %v", host, got, allowed)
		}
	}
}

func TestControlChecksTheAddressDialled(t *testing.T) {
	g, _ := New(Config{})
	if err := g.Control("tcp4", "127.0.0.1:80", nil); !errors.Is(err, ErrRefused) {
		t.Errorf("Control(127.0.0.1) = %v, want refused", err)
	}
	if err := g.Control("tcp6", "[fd00:ec2::254]:80", nil); err == nil || !strings.Contains(err.Error(), "cloud metadata") {
		t.Errorf("Control(metadata) = %v, want a refusal naming the class", err)
	}
	if err := g.Control("tcp4", "93.184.215.14:443", nil); err != nil {
		t.Errorf("Control(public) = %v", err)
	}
}

// fakeResolver answers from a table, as DNS would for a hostile name.
type fakeResolver map[string][]netip.Addr

func (r fakeResolver) LookupNetIP(_ context.Context, _ string, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func TestDialContextRefusesANameThatResolvesInsideAndDialsNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan string, 2) // the peer address of each connection, in order
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c.RemoteAddr().String()
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	res := fakeResolver{"www.example.com": {netip.MustParseAddr("127.0.0.1")}}
	g, _ := New(Config{Resolver: res})
	_, err = g.DialContext(context.Background(), "tcp", net.JoinHostPort("www.example.com", port))
	var re *RefusedError
	if !errors.As(err, &re) || re.Host != "www.example.com" || re.Class != "loopback" {
		t.Fatalf("dial = %v, want a loopback refusal naming the host", err)
	}
	if !strings.Contains(err.Error(), "www.example.com (127.0.0.1)") {
		t.Errorf("error %q should name the host and the address", err)
	}
	g, _ = New(Config{Resolver: res, AllowHosts: []string{"www.example.com"}})
	c, err := g.DialContext(context.Background(), "tcp", net.JoinHostPort("www.example.com", port))
	if err != nil {
		t.Fatalf("dial of an allowed host = %v", err)
	}
	defer c.Close()
	if first := <-accepted; first != c.LocalAddr().String() {
		t.Fatalf("the listener first accepted %s, not the allowed dial from %s: the refused dial reached it", first, c.LocalAddr())
	}
}
