package otlp

import (
	"errors"
	"testing"
)

func TestResolveReadsTheStandardVariablesUnderTheFile(t *testing.T) {
	env := map[string]string{
		EnvEndpoint: "http://collector:4318", EnvHeaders: "api-key=s%20ecret,tenant=a",
		EnvServiceName: "svc", EnvCaptureContent: "true",
	}
	c, err := Resolve(Config{Headers: map[string]string{"tenant": "b"}}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	u, _ := c.url()
	if got := u.String(); got != "http://collector:4318/v1/traces" {
		t.Errorf("url = %s, want the base endpoint with /v1/traces", got)
	}
	if c.Headers["api-key"] != "s ecret" || c.Headers["tenant"] != "b" {
		t.Errorf("headers = %v: want the variable's decoded, the file's winning", c.Headers)
	}
	if c.ServiceName != "svc" || !c.CaptureContent || c.Protocol != ProtocolHTTP {
		t.Errorf("config = %+v", c)
	}
}

func TestResolveTable(t *testing.T) {
	for _, tc := range []struct {
		name    string
		file    Config
		env     map[string]string
		wantURL string // "" = export off
		wantErr bool
	}{
		{"nothing set is export off", Config{}, nil, "", false},
		{"the traces endpoint is used as it is", Config{}, map[string]string{EnvTracesEndpoint: "https://c/x/traces", EnvEndpoint: "http://other"}, "https://c/x/traces", false},
		{"grpc takes the endpoint without a path", Config{Endpoint: "http://c:4317", Protocol: ProtocolGRPC}, nil, "http://c:4317", false},
		{"the file's endpoint wins over the variable", Config{Endpoint: "http://file:4318"}, map[string]string{EnvEndpoint: "http://env:4318"}, "http://file:4318/v1/traces", false},
		{"OTEL_SDK_DISABLED turns export off", Config{Endpoint: "http://c:4318"}, map[string]string{EnvSDKDisabled: "true"}, "", false},
		{"OTEL_TRACES_EXPORTER=none turns export off", Config{}, map[string]string{EnvEndpoint: "http://c", EnvTracesExporter: "none"}, "", false},
		{"http/json is refused", Config{Endpoint: "http://c", Protocol: "http/json"}, nil, "", true},
		{"an endpoint that is no URL is refused", Config{Endpoint: "collector:4318"}, nil, "", true},
		{"a header without = is refused", Config{}, map[string]string{EnvEndpoint: "http://c", EnvHeaders: "novalue"}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Resolve(tc.file, func(k string) string { return tc.env[k] })
			if tc.wantErr {
				if !errors.Is(err, ErrConfig) {
					t.Fatalf("err = %v, want ErrConfig", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !c.Enabled() {
				if tc.wantURL != "" {
					t.Fatalf("export off, want %s", tc.wantURL)
				}
				return
			}
			u, err := c.url()
			if err != nil || u.String() != tc.wantURL {
				t.Errorf("url = %v, %v; want %s", u, err, tc.wantURL)
			}
		})
	}
}

func TestParseTraceParent(t *testing.T) {
	p, err := ParseTraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	if err != nil || p.Flags != 1 || p.SpanID[7] != 0xb7 || p.TraceID[0] != 0x4b {
		t.Fatalf("parse = %+v, %v", p, err)
	}
	for _, bad := range []string{"", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
		"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"} {
		if _, err := ParseTraceParent(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestIDsAreTheStoredOnesOrStableHashes(t *testing.T) {
	if id := spanID("00f067aa0ba902b7"); id != [8]byte{0, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7} {
		t.Errorf("a hex span id must go out as it is: %x", id)
	}
	if first, again := spanID("imported.span-1"), spanID("imported.span-1"); first != again || spanID("a") == spanID("b") {
		t.Error("imported ids must hash stably and distinctly")
	}
	if traceID("run-1") == traceID("run-2") {
		t.Error("imported run ids must hash distinctly")
	}
}
