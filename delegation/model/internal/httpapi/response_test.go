package httpapi

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestFromResponseReadsTheProvidersExplanation(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		wantType string
		wantMsg  string
	}{
		{"the OpenAI envelope gives type and message",
			`{"error":{"message":"Invalid model","type":"invalid_request_error","param":null,"code":"model_not_found"}}`,
			"model_not_found", "Invalid model"},
		{"OpenAI's type stands in for a missing code",
			`{"error":{"message":"Incorrect API key","type":"invalid_request_error","code":null}}`,
			"invalid_request_error", "Incorrect API key"},
		{"the Anthropic envelope gives type and message",
			`{"type":"error","error":{"type":"not_found_error","message":"model: claude-x"},"request_id":"req_1"}`,
			"not_found_error", "model: claude-x"},
		{"a bare error string is the message",
			`{"error":"model 'llama9' not found"}`, "", "model 'llama9' not found"},
		{"an HTML page is quoted, squeezed",
			"<html>\n  <body>Bad Gateway</body>\n</html>", "", "<html> <body>Bad Gateway</body> </html>"},
		{"a long body is cut",
			strings.Repeat("x", 300), "", strings.Repeat("x", 200) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &http.Response{StatusCode: 400, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(tt.body))}
			err := FromResponse("p", res, time.Now())
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("FromResponse = %v, want an *APIError", err)
			}
			if apiErr.Type != tt.wantType || apiErr.Message != tt.wantMsg {
				t.Errorf("type %q message %q, want %q %q", apiErr.Type, apiErr.Message, tt.wantType, tt.wantMsg)
			}
		})
	}
}
