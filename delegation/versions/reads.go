package versions

import (
	"context"

	"github.com/agentry/agentry/trace"
)

// Reads is the recorder's store whose reads of versions first wait for the
// changes queued before them, so a page that lists versions right after a
// save in the same process lists that save's.
func (r *Recorder) Reads() trace.VersionStore { return reads{r.store, r} }

type reads struct {
	trace.VersionStore
	r *Recorder
}

func (s reads) LatestVersion(ctx context.Context, kind, name string) (trace.Version, error) {
	if err := s.r.Flush(ctx); err != nil {
		return trace.Version{}, err
	}
	return s.VersionStore.LatestVersion(ctx, kind, name)
}

func (s reads) LatestVersions(ctx context.Context, kind string) (map[string]trace.Version, error) {
	if err := s.r.Flush(ctx); err != nil {
		return nil, err
	}
	return s.VersionStore.LatestVersions(ctx, kind)
}

func (s reads) Versions(ctx context.Context, kind, name string) ([]trace.Version, error) {
	if err := s.r.Flush(ctx); err != nil {
		return nil, err
	}
	return s.VersionStore.Versions(ctx, kind, name)
}

func (s reads) Version(ctx context.Context, kind, name, hash string) (trace.Version, error) {
	if err := s.r.Flush(ctx); err != nil {
		return trace.Version{}, err
	}
	return s.VersionStore.Version(ctx, kind, name, hash)
}
