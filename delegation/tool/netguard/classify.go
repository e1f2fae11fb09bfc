package netguard

import "net/netip"

// blocked are the non-public ranges in the order their names are tried, so
// the most specific name wins (metadata before link-local).
var blocked = []struct {
	class  string
	prefix netip.Prefix
}{
	{"cloud metadata", netip.MustParsePrefix("169.254.169.254/32")},
	{"cloud metadata", netip.MustParsePrefix("fd00:ec2::254/128")},
	{"unspecified", netip.MustParsePrefix("0.0.0.0/8")}, // "this network"; 0.0.0.0 reaches localhost
	{"unspecified", netip.MustParsePrefix("::/128")},
	{"loopback", netip.MustParsePrefix("127.0.0.0/8")},
	{"loopback", netip.MustParsePrefix("::1/128")},
	{"private", netip.MustParsePrefix("10.0.0.0/8")},
	{"private", netip.MustParsePrefix("172.16.0.0/12")},
	{"private", netip.MustParsePrefix("192.168.0.0/16")},
	{"private", netip.MustParsePrefix("fc00::/7")},
	{"shared (CGNAT)", netip.MustParsePrefix("100.64.0.0/10")},
	{"link-local", netip.MustParsePrefix("169.254.0.0/16")},
	{"link-local", netip.MustParsePrefix("fe80::/10")},
	{"multicast", netip.MustParsePrefix("224.0.0.0/4")},
	{"multicast", netip.MustParsePrefix("ff00::/8")},
	{"reserved", netip.MustParsePrefix("240.0.0.0/4")}, // and 255.255.255.255, broadcast
	{"reserved", netip.MustParsePrefix("192.0.0.0/24")},
	{"reserved", netip.MustParsePrefix("198.18.0.0/15")},
	{"reserved", netip.MustParsePrefix("::/96")}, // IPv4-compatible, deprecated
}

// nat64 and sixToFour embed an IPv4 address, which is judged in their place.
var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// Classify names the class of a non-public address ("loopback", "private",
// "cloud metadata", ...), or returns "" for a public one. IPv4-mapped,
// NAT64 and 6to4 addresses are judged by the IPv4 address they carry.
func Classify(ip netip.Addr) string {
	ip = ip.Unmap().WithZone("")
	if !ip.IsValid() {
		return "invalid"
	}
	if ip.Is6() {
		b := ip.As16()
		switch {
		case nat64.Contains(ip):
			return Classify(netip.AddrFrom4([4]byte(b[12:16])))
		case sixToFour.Contains(ip):
			return Classify(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	for _, b := range blocked {
		if b.prefix.Contains(ip) {
			return b.class
		}
	}
	return ""
}
