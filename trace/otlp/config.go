package otlp

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"
)

// Protocols an Exporter speaks, the values of OTEL_EXPORTER_OTLP_PROTOCOL.
const (
	ProtocolHTTP = "http/protobuf"
	ProtocolGRPC = "grpc"
)

// Environment variables Resolve reads: the OpenTelemetry standard names, so
// an existing collector setup works unchanged.
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	EnvTracesProtocol = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	EnvHeaders        = "OTEL_EXPORTER_OTLP_HEADERS"
	EnvTracesHeaders  = "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
	EnvServiceName    = "OTEL_SERVICE_NAME"
	EnvSDKDisabled    = "OTEL_SDK_DISABLED"
	EnvTracesExporter = "OTEL_TRACES_EXPORTER"
	// EnvCaptureContent is the switch the OpenTelemetry GenAI
	// instrumentations use for message content.
	EnvCaptureContent = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
	// EnvTraceParent is the W3C trace context a caller passes to a child
	// process; an agentry run started with it joins the caller's trace.
	EnvTraceParent = "TRACEPARENT"
)

// DefaultServiceName is service.name when neither OTEL_SERVICE_NAME nor
// OTEL_RESOURCE_ATTRIBUTES names one.
const DefaultServiceName = "agentry"

// ErrConfig wraps every configuration error Resolve returns.
var ErrConfig = errors.New("otel config")

// Config says where spans go and what they carry. The zero value is export
// off. Resolve fills it from a config file's `otel:` section and the
// standard environment variables.
type Config struct {
	// Endpoint is the collector's base URL, like OTEL_EXPORTER_OTLP_ENDPOINT:
	// over HTTP spans go to its /v1/traces. Empty with TracesEndpoint empty
	// means export off.
	Endpoint string
	// TracesEndpoint is the full URL spans go to, like
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; it wins over Endpoint.
	TracesEndpoint string
	// Protocol is ProtocolHTTP (default) or ProtocolGRPC.
	Protocol string
	// Headers go with every export request (an API key, a tenant).
	Headers map[string]string
	// ServiceName overrides OTEL_SERVICE_NAME and the default "agentry".
	ServiceName string
	// CaptureContent sends tasks, results, context passed and tool
	// arguments and results. Off by default: they may hold anything a user
	// or a tool produced.
	CaptureContent bool
	// Parent is a W3C traceparent ("00-<trace>-<span>-<flags>") the runs
	// exported here are children of; empty for runs that start their own
	// trace.
	Parent string

	// BatchSize spans (or 2 MiB) make a request; default 2048.
	BatchSize int
	// MaxQueue bounds the spans waiting to be sent; more are dropped and
	// counted. Default 8192.
	MaxQueue int
	// Interval between sends of a partial batch; default 200ms, what "live"
	// lags by.
	Interval time.Duration
	// Timeout bounds each export request; default 5s.
	Timeout time.Duration
	// Logger gets the one warning about dropped spans; default slog.Default().
	Logger *slog.Logger
}

// Enabled reports whether spans go anywhere.
func (c Config) Enabled() bool { return c.Endpoint != "" || c.TracesEndpoint != "" }

// Resolve completes file, the `otel:` section of a config file, from the
// environment (getenv is os.Getenv in the binary): fields the file leaves
// empty take the standard variables, headers merge with the file's
// winning. OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turn export
// off whatever the file says.
func Resolve(file Config, getenv func(string) string) (Config, error) {
	c := file
	if strings.EqualFold(getenv(EnvSDKDisabled), "true") || getenv(EnvTracesExporter) == "none" {
		return Config{Parent: c.Parent}, nil
	}
	if c.Endpoint == "" && c.TracesEndpoint == "" {
		c.Endpoint, c.TracesEndpoint = getenv(EnvEndpoint), getenv(EnvTracesEndpoint)
	}
	if c.Protocol == "" {
		c.Protocol = firstOf(getenv(EnvTracesProtocol), getenv(EnvProtocol), ProtocolHTTP)
	}
	if c.Protocol != ProtocolHTTP && c.Protocol != ProtocolGRPC {
		return Config{}, fmt.Errorf("%w: protocol %q: use %q or %q", ErrConfig, c.Protocol, ProtocolHTTP, ProtocolGRPC)
	}
	headers := map[string]string{}
	for _, env := range []string{EnvHeaders, EnvTracesHeaders} {
		h, err := ParseHeaders(getenv(env))
		if err != nil {
			return Config{}, fmt.Errorf("%w: %s: %w", ErrConfig, env, err)
		}
		for k, v := range h {
			headers[k] = v
		}
	}
	for k, v := range c.Headers {
		headers[k] = v
	}
	c.Headers = headers
	if c.ServiceName == "" {
		c.ServiceName = getenv(EnvServiceName)
	}
	if !c.CaptureContent {
		c.CaptureContent = strings.EqualFold(getenv(EnvCaptureContent), "true")
	}
	if c.Enabled() {
		if _, err := c.url(); err != nil {
			return Config{}, err
		}
	}
	return c, nil
}

// url is where spans go: TracesEndpoint as it is, or Endpoint with
// /v1/traces appended over HTTP (the OTLP rule for the base variable).
func (c Config) url() (*url.URL, error) {
	raw, base := c.TracesEndpoint, false
	if raw == "" {
		raw, base = c.Endpoint, true
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("%w: endpoint %q: want a URL like http://127.0.0.1:4318", ErrConfig, raw)
	}
	if base && c.Protocol != ProtocolGRPC {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
	}
	return u, nil
}

// ParseHeaders reads the OTLP headers format: comma-separated key=value
// pairs, values URL-encoded.
func ParseHeaders(s string) (map[string]string, error) {
	h := map[string]string{}
	for _, pair := range strings.Split(s, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("header %q: want key=value", pair)
		}
		val, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("header %q: %w", k, err)
		}
		h[k] = val
	}
	return h, nil
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func (c Config) withDefaults() Config {
	if c.BatchSize <= 0 {
		c.BatchSize = 2048
	}
	if c.MaxQueue <= 0 {
		c.MaxQueue = 8192
	}
	if c.Interval <= 0 {
		c.Interval = 200 * time.Millisecond
	}
	if c.Timeout <= 0 {
		c.Timeout = 5 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Protocol == "" {
		c.Protocol = ProtocolHTTP
	}
	return c
}
