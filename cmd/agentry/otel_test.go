package main

import (
	"strings"
	"testing"
)

func TestOtelSectionDecodesAndRefusesUnknownKeys(t *testing.T) {
	var cfg Config
	err := decodeConfig(&cfg, "agentry.yaml", []byte("otel:\n  endpoint: http://127.0.0.1:4318\n  protocol: grpc\n  headers: {x-key: k}\n  capture_content: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	if o := cfg.Otel; o.Endpoint != "http://127.0.0.1:4318" || o.Protocol != "grpc" || o.Headers["x-key"] != "k" || !o.CaptureContent {
		t.Errorf("otel = %+v", o)
	}
	err = decodeConfig(&cfg, "agentry.yaml", []byte("otel:\n  endpoint: http://x\n  endpont: http://y\n"))
	if err == nil || !strings.Contains(err.Error(), "agentry.yaml:3") || !strings.Contains(err.Error(), `"endpont"`) {
		t.Errorf("err = %v, want the file, line 3 and the key", err)
	}
}

func TestABadOtelProtocolIsAConfigError(t *testing.T) {
	s := &session{getenv: func(string) string { return "" }}
	cfg := Config{Otel: OtelConfig{Endpoint: "http://127.0.0.1:4318", Protocol: "http/json"}}
	if _, err := s.otelConfig(cfg, nil); err == nil || !strings.Contains(err.Error(), "http/json") {
		t.Errorf("err = %v, want the protocol named", err)
	}
}
