package web_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/web"
)

func get(t *testing.T, client *http.Client, url string, header ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestProbesNeedNoTokenAndMetricsDo(t *testing.T) {
	const token = "t0ken-t0ken-t0ken"
	storeErr := error(nil)
	env := newTestEnv(t, team, func(c *web.Config) {
		c.Token = token
		c.Ready = []web.Check{
			{Name: "registry", Run: func(context.Context) error { return nil }},
			{Name: "store", Run: func(context.Context) error { return storeErr }},
		}
		c.Metrics = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "agentry_up 1\n") })
	})
	plain := &http.Client{}
	// A probe comes by address, without the token and with a Host that is not loopback.
	if code, body := get(t, plain, env.HTTP.URL+"/healthz", "Host", "10.1.2.3:8080"); code != 200 || body != "ok\n" {
		t.Fatalf("/healthz = %d %q, want 200 ok", code, body)
	}
	if code, body := get(t, plain, env.HTTP.URL+"/readyz"); code != 200 || !strings.Contains(body, `"status":"ok"`) {
		t.Fatalf("/readyz = %d %q, want 200 ok", code, body)
	}
	storeErr = errors.New("database file is gone")
	code, body := get(t, plain, env.HTTP.URL+"/readyz")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, `"store":"database file is gone"`) || !strings.Contains(body, `"registry":"ok"`) {
		t.Fatalf("/readyz with a failing store = %d %q, want 503 naming the store", code, body)
	}
	if code, _ := get(t, plain, env.HTTP.URL+"/metrics"); code != http.StatusUnauthorized {
		t.Fatalf("/metrics without the token = %d, want 401", code)
	}
	if code, body := get(t, plain, env.HTTP.URL+"/metrics", "Authorization", "Bearer "+token); code != 200 || body != "agentry_up 1\n" {
		t.Fatalf("/metrics with the token = %d %q", code, body)
	}
}

func TestNoMetricsHandlerMeansNoMetricsRoute(t *testing.T) {
	env := newTestEnv(t, team)
	if code, _ := get(t, &http.Client{}, env.HTTP.URL+"/metrics"); code != http.StatusNotFound {
		t.Fatalf("/metrics = %d, want 404 when serve gives the metrics their own address", code)
	}
}
