// Package netguard keeps agent tools that reach the network (web.fetch, the
// pages web.search results lead to) out of the machine's own network: by
// default a connection to a loopback, private (RFC 1918, RFC 4193),
// link-local, shared (CGNAT), multicast, unspecified, reserved or cloud
// metadata address is refused.
//
// The rule is applied to the address actually dialled, on every connection,
// redirects included: Guard.DialContext resolves the host itself, checks each
// address and dials that address (so a DNS answer cannot change between the
// check and the dial), and its dialer's Control function checks the socket's
// address once more. Looking at a URL's text would not do: a public-looking
// name can resolve to 127.0.0.1, and a public page can redirect inward.
//
// Configuration may allow named hosts (whatever they resolve to) and CIDR
// ranges. Proxies from the environment are not used by Guard's transport: a
// proxy would reach internal addresses on the tool's behalf.
package netguard
