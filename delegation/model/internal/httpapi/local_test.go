package httpapi

import "testing"

func TestIsLocal(t *testing.T) {
	tests := []struct {
		url  string
		want bool
	}{
		{"http://localhost:11434/v1", true},
		{"http://127.0.0.1:8080/v1", true},
		{"http://127.1.2.3/v1", true},
		{"http://[::1]:8000/v1", true},
		{"https://openrouter.ai/api/v1", false},
		{"http://10.0.0.5:8000/v1", false},
		{"", false},
		{"localhost:11434", false}, // no scheme: url.Parse reads "localhost" as the scheme
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			if got := IsLocal(tt.url); got != tt.want {
				t.Errorf("IsLocal(%q) = %v, want %v", tt.url, got, tt.want)
			}
		})
	}
}
