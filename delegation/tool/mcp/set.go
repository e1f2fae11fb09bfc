package mcp

import (
	"context"
	"errors"
	"sync"

	"github.com/agentry/agentry/delegation/tool"
)

// Set is several connected servers, used and closed together.
type Set []*Client

// ConnectAll connects every server at once, so start-up costs the slowest
// server rather than the sum. The clients come back in the order given. If
// any server fails, the ones that started are closed and every failure is
// reported in one joined error.
func ConnectAll(ctx context.Context, servers []Server) (Set, error) {
	set := make(Set, len(servers))
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() { set[i], errs[i] = Connect(ctx, s) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, c := range set {
			if c != nil {
				c.Close()
			}
		}
		return nil, err
	}
	return set, nil
}

// Tools returns the tools of every server in the set.
func (s Set) Tools() []tool.Tool {
	var out []tool.Tool
	for _, c := range s {
		out = append(out, c.Tools()...)
	}
	return out
}

// Close stops every server, in parallel, and joins their errors.
func (s Set) Close() error {
	errs := make([]error, len(s))
	var wg sync.WaitGroup
	for i, c := range s {
		wg.Go(func() { errs[i] = c.Close() })
	}
	wg.Wait()
	return errors.Join(errs...)
}
