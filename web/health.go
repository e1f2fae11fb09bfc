package web

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// Check is one condition of readiness: Run returns nil when it holds.
type Check struct {
	// Name says what is checked ("store", "registry", "temporal"); it is
	// the key in /readyz's answer.
	Name string
	// Run checks once; it gets a context that ends after readyTimeout and
	// must be cheap (probes call it every few seconds).
	Run func(context.Context) error
}

// readyTimeout bounds one /readyz answer: a store that hangs is not ready.
const readyTimeout = 2 * time.Second

// probes serves /healthz and /readyz before the UI's middleware: they need
// no token and no loopback Host, since a load balancer or an orchestrator
// calls them by address, and they say nothing but "ok" or what is wrong.
// /healthz answers 200 while the process serves; /readyz runs every check
// and answers 503 with the failures when one fails.
func probes(checks []Check, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			_, _ = w.Write([]byte("ok\n"))
		case "/readyz":
			ready(w, r, checks)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// ready runs the checks and writes {"status": "ok"|"unavailable",
// "checks": {NAME: "ok"|ERROR}}.
func ready(w http.ResponseWriter, r *http.Request, checks []Check) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	answer := struct {
		Status string            `json:"status"`
		Checks map[string]string `json:"checks"`
	}{"ok", map[string]string{}}
	code := http.StatusOK
	for _, c := range checks {
		if err := c.Run(ctx); err != nil {
			answer.Checks[c.Name], answer.Status, code = err.Error(), "unavailable", http.StatusServiceUnavailable
			continue
		}
		answer.Checks[c.Name] = "ok"
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(answer)
}
