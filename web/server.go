package web

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
)

// Catalog is the live set of agents the UI shows. *registry.Registry satisfies it.
//
// Snapshot must be cheap and safe for concurrent use; the UI calls it once per
// request and never mutates what it returns. Subscribe's channel receives a
// value (coalesced) after each change until the returned func is called.
type Catalog interface {
	Snapshot() *registry.Snapshot
	Subscribe() (<-chan struct{}, func())
}

// Files writes agent files. *folder.Folder satisfies it.
//
// Paths are relative to the agents folder and slash-separated. expectHash is
// the registry.Hash of the content the user started from ("" when creating);
// a mismatch returns registry.ErrConflict, an escaping path ErrInvalidPath,
// creating over an existing file ErrExists.
type Files interface {
	Write(path string, data []byte, expectHash string) (string, error)
	Rename(oldPath, newPath, expectHash string) error
	Delete(path, expectHash string) error
}

// Config is what New needs. Agents and Files are required; the rest is optional.
type Config struct {
	// Agents is the live registry the pages read.
	Agents Catalog
	// Files writes the agents folder on behalf of the editor.
	Files Files
	// Global is the global tool level of every permission chain.
	Global permissions.Rules
	// Delegation is the run-wide delegation policy (max depth, disabled agents).
	Delegation permissions.Delegation
	// Models are suggestions for the editor's model field (aliases, the default).
	Models []string
	// Token, when not empty, is required on every request (header, cookie or
	// ?token= once). serve sets it for non-loopback addresses.
	Token string
	// Log receives one line per failed request; nil discards.
	Log *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Runs is the trace store the runs pages read; nil makes them answer 503.
	Runs RunStore
	// Runtime starts runs from the browser; nil leaves the start form
	// explaining that this server cannot run agents.
	Runtime Runner
	// DefaultModel is preselected in the start-a-run form; "" means "demo".
	DefaultModel string
}

// Server is the web UI. It is an http.Handler; Close ends open event streams
// so an http.Server can shut down gracefully.
type Server struct {
	cfg  Config
	echo *echo.Echo
	log  *slog.Logger

	stopOnce sync.Once
	stop     chan struct{}
}

// New builds the server and its routes.
func New(cfg Config) (*Server, error) {
	if cfg.Agents == nil || cfg.Files == nil {
		return nil, errors.New("web: Config.Agents and Config.Files are required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, log: cfg.Log, stop: make(chan struct{})}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	if err := s.middleware(e); err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	s.routes(e)
	s.echo = e
	return s, nil
}

// ServeHTTP serves the UI.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.echo.ServeHTTP(w, r) }

// Close ends long-lived responses (event streams). It is safe to call twice;
// serve registers it with http.Server.RegisterOnShutdown.
func (s *Server) Close() { s.stopOnce.Do(func() { close(s.stop) }) }
