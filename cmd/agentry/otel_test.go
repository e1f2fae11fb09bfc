package main

import (
	"strings"
	"testing"

	"github.com/agentry/agentry/cmd/agentry/config"
)

func TestABadOtelProtocolIsAConfigError(t *testing.T) {
	s := &session{getenv: func(string) string { return "" }}
	cfg := config.Config{Otel: config.OtelConfig{Endpoint: "http://127.0.0.1:4318", Protocol: "http/json"}}
	if _, err := s.otelConfig(cfg, nil); err == nil || !strings.Contains(err.Error(), "http/json") {
		t.Errorf("err = %v, want the protocol named", err)
	}
}
