package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace/postgres"
)

// needs says what a command opens from its configuration before it runs,
// besides the configuration itself (configOnly).
type needs uint8

const (
	configOnly    needs = 0
	agentsFolder  needs = 1 << iota // the agents folder as read now, and the skills library (openAgents)
	watchedAgents                   // the agents folder followed until the command ends
	traceStore                      // the trace database (openStore); created when there is none
	readStore                       // the trace database to read runs from: none is noDBError, and none is created
)

// opened is what a command opened: its configuration, and the agents and
// the trace store when it asked for them.
type opened struct {
	cfg    config.Config
	reg    *registry.Registry // with agentsFolder or watchedAgents
	store  traceDB            // with traceStore or readStore
	closes []func() error
}

// Close closes what was opened, the last first.
func (o *opened) Close() error {
	var errs []error
	for i := len(o.closes) - 1; i >= 0; i-- {
		errs = append(errs, o.closes[i]())
	}
	return errors.Join(errs...)
}

// open loads cmd's configuration (a configuration error exits 2) and
// opens what n asks: the agents first, then the trace store, so a bad
// agents folder leaves no new database behind.
func (s *session) open(cmd *cobra.Command, n needs) (*opened, error) {
	cfg, err := s.loadConfig(cmd)
	if err != nil {
		return nil, err
	}
	o := &opened{cfg: cfg}
	if n&(agentsFolder|watchedAgents) != 0 {
		reg, closeAgents, err := s.openAgents(cmd.Context(), cfg, n&watchedAgents != 0)
		if err != nil {
			return nil, err
		}
		o.reg, o.closes = reg, append(o.closes, closeAgents)
	}
	if n&readStore != 0 && noDB(cfg.DB) {
		o.Close()
		return nil, noDBError{path: cfg.DB}
	}
	if n&(traceStore|readStore) != 0 {
		store, err := openStore(cfg.DB)
		if err != nil {
			o.Close()
			return nil, err
		}
		o.store, o.closes = store, append(o.closes, store.Close)
	}
	return o, nil
}

// with is a command's RunE that opens what n asks, hands it to run and
// closes it when run returns.
func (s *session) with(n needs, run func(cmd *cobra.Command, args []string, o *opened) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		o, err := s.open(cmd, n)
		if err != nil {
			return err
		}
		defer o.Close()
		return run(cmd, args, o)
	}
}

// noDB reports whether db names an SQLite file that is not there yet,
// which a command that only reads must not create.
func noDB(db string) bool {
	if postgres.IsURL(db) {
		return false
	}
	_, err := os.Stat(db)
	return errors.Is(err, os.ErrNotExist)
}

// noDBError is a read of runs (or approvals) with no SQLite database yet:
// none of them.
type noDBError struct {
	path string
	what string // what is looked for: a run unless set
}

func (e noDBError) Error() string {
	return fmt.Sprintf("no trace database at %s, so no such %s", e.path, cmp.Or(e.what, "run"))
}
