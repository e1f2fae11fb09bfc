package fakeapi

import (
	"net/http"
	"strings"
	"testing"
)

func TestServerPlaysRepliesInOrderThenRefuses(t *testing.T) {
	s := New(t, Reply{Status: 201}, Reply{Status: 503, Header: map[string]string{"Retry-After": "1"}})
	want := []int{201, 503, http.StatusTeapot}
	for i, code := range want {
		res, err := http.Post(s.URL()+"/v1/x", "application/json", strings.NewReader(`{"n":1}`))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != code {
			t.Errorf("request %d: status %d, want %d", i, res.StatusCode, code)
		}
	}
	got := s.Requests()
	if len(got) != 3 || got[0].Path != "/v1/x" || string(got[0].Body) != `{"n":1}` {
		t.Errorf("recorded %+v, want three POSTs to /v1/x with the body", got)
	}
}
