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
)

// Defaults for a zero Config.
const (
	DefaultMaxBytes = 512 << 10
	DefaultTimeout  = 20 * time.Second
)

// ErrTooLarge marks an answer cut at the size cap; it is reported in the
// result text, not as a failure.
var ErrTooLarge = errors.New("response larger than the size cap")

// Config sets the fetch limits.
type Config struct {
	// Client does the request; nil means a new http.Client.
	Client *http.Client
	// MaxBytes caps the body returned; 0 means DefaultMaxBytes.
	MaxBytes int64
	// Timeout bounds the whole request; 0 means DefaultTimeout.
	Timeout time.Duration
}

// New returns the web.fetch tool.
func New(cfg Config) tool.Tool {
	if cfg.Client == nil {
		cfg.Client = &http.Client{}
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
	}, Fn: cfg.fetch}
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
