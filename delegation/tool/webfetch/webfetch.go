package webfetch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/delegation/tool/netguard"
)

// Defaults for a zero Config.
const (
	DefaultMaxBytes = 512 << 10
	DefaultTimeout  = 20 * time.Second
)

// ErrTooLarge marks an answer cut at the size cap; it is reported in the
// result text, not as a failure.
var ErrTooLarge = errors.New("response larger than the size cap")

// Config sets the fetch limits and which addresses may be reached.
type Config struct {
	// Client does the request, as is: its owner decides which addresses it
	// may reach. Nil (the usual case) means a client that dials through a
	// netguard.Guard built from AllowHosts, AllowCIDRs and Resolver, so
	// loopback, private, link-local and metadata addresses are refused on
	// every connection, redirects included.
	Client *http.Client
	// AllowHosts are host names web.fetch may reach whatever they resolve
	// to (exact, or "*.example.com"); config key web.allow_hosts.
	AllowHosts []string
	// AllowCIDRs are non-public ranges web.fetch may reach ("10.0.0.0/8",
	// "127.0.0.1"); config key web.allow_networks.
	AllowCIDRs []string
	// Resolver resolves host names for the guard; nil means the system's.
	Resolver netguard.Resolver
	// MaxBytes caps the body returned; 0 means DefaultMaxBytes.
	MaxBytes int64
	// Timeout bounds the whole request; 0 means DefaultTimeout.
	Timeout time.Duration
}

// New returns the web.fetch tool. A malformed AllowHosts or AllowCIDRs
// entry allows nothing: every call fails with the error naming it (the CLI
// reports it when it loads the config, through netguard.New).
func New(cfg Config) tool.Tool {
	var guardErr error
	if cfg.Client == nil {
		g, err := netguard.New(netguard.Config{AllowHosts: cfg.AllowHosts, AllowCIDRs: cfg.AllowCIDRs, Resolver: cfg.Resolver})
		if err != nil {
			guardErr = fmt.Errorf("web.fetch config: %w", err)
		} else {
			cfg.Client = g.Client()
		}
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	return tool.Func{Def: model.Tool{
		Name:        "web.fetch",
		Description: fmt.Sprintf("Fetch an http(s) URL with GET and return its status, content type and body (at most %d bytes).", cfg.MaxBytes),
		Parameters:  tool.Schema(map[string]string{"url": `{"type":"string","description":"absolute http or https URL"}`}, "url"),
	}, Fn: func(ctx context.Context, raw json.RawMessage) (string, error) {
		if guardErr != nil {
			return "", guardErr
		}
		return cfg.fetch(ctx, raw)
	}}
}

func (cfg Config) fetch(ctx context.Context, raw json.RawMessage) (string, error) {
	var a struct{ URL string }
	if err := tool.Decode(raw, &a); err != nil {
		return "", err
	}
	u, err := url.Parse(a.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%w: url %q is not an absolute http(s) URL", tool.ErrInvalidArgs, a.URL)
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", fmt.Errorf("fetch %s: %w", a.URL, err)
	}
	req.Header.Set("User-Agent", "agentry web.fetch")
	resp, err := cfg.Client.Do(req)
	if err != nil {
		return "", fmt.Errorf("fetch %s: %w", a.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, cfg.MaxBytes+1))
	if err != nil {
		return "", fmt.Errorf("fetch %s: read body: %w", a.URL, err)
	}
	out := fmt.Sprintf("status: %d\ncontent-type: %s\n\n", resp.StatusCode, resp.Header.Get("Content-Type"))
	if int64(len(body)) > cfg.MaxBytes {
		return out + string(body[:cfg.MaxBytes]) + fmt.Sprintf("\n[%v: cut at %d bytes]", ErrTooLarge, cfg.MaxBytes), nil
	}
	return out + string(body), nil
}
