package trace

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentry/agentry/trace/semconv"
)

// Version is one content of an agent, workflow or skill file, recorded
// when agentry saw it change (docs/versions.md).
type Version struct {
	Kind string `json:"kind"` // "agent", "workflow", "skill"
	// Name is what the file defines (an agent's id); versions are listed
	// by kind and name.
	Name string `json:"name"`
	// Path is the file relative to its folder when this version was seen.
	Path string `json:"path"`
	// Hash is the sha256 (hex) of Content, as registry.Hash computes it;
	// "" for a deletion.
	Hash string    `json:"hash"`
	Time time.Time `json:"time"`
	// Source says who made the change: "web", "api", "filesystem", "cli".
	Source string `json:"source"`
	// Summary is a one-line description of how it differs from the
	// version before (diff.Summary in registry/diff).
	Summary string `json:"summary"`
	// Deleted marks the version that records the file's deletion.
	Deleted bool `json:"deleted,omitempty"`
	// Content is the file's bytes; listings leave it out.
	Content []byte `json:"-"`
}

// VersionUse is one run that ran an agent's or a workflow's file at a
// version.
type VersionUse struct {
	RunID     string    `json:"run_id"`
	Hash      string    `json:"hash"`
	StartedAt time.Time `json:"started_at"`
	Status    Status    `json:"status"`
}

// ErrAmbiguous is returned for a hash prefix that names several versions.
var ErrAmbiguous = errors.New("ambiguous")

// MinHashPrefix is the shortest hash prefix a lookup accepts.
const MinHashPrefix = 4

// VersionStore keeps the versions of agent, workflow and skill files beside
// the traces, so a run's agent_version can be read back as the file it ran
// with. It is optional: a store without it records no versions, and the
// commands that need them say so. Implementations are safe for concurrent
// use by several processes on one database.
type VersionStore interface {
	// AddVersion records v as the newest version of (v.Kind, v.Name),
	// unless the newest one already has v's hash and deletion mark (two
	// processes that notice one change record it once); it reports whether
	// v was added. v.Hash must be the hash of v.Content. A version without
	// kind or name, or with a hash and no content, is ErrInvalid.
	AddVersion(ctx context.Context, v Version) (bool, error)
	// LatestVersion returns the newest version of (kind, name), content
	// included, or ErrNotFound.
	LatestVersion(ctx context.Context, kind, name string) (Version, error)
	// LatestVersions returns the newest version of every name of kind,
	// contents left out, for a command that loads a folder to find what
	// changed while nothing ran.
	LatestVersions(ctx context.Context, kind string) (map[string]Version, error)
	// Versions lists the versions of (kind, name) newest first (the order
	// they were added), contents left out.
	Versions(ctx context.Context, kind, name string) ([]Version, error)
	// Version returns the version of (kind, name) whose hash is hash or
	// begins with it (at least MinHashPrefix characters), content
	// included: ErrNotFound when none does, ErrAmbiguous when several
	// different hashes do. A hash recorded more than once (a file restored)
	// returns its newest version.
	Version(ctx context.Context, kind, name, hash string) (Version, error)
	// VersionUses lists the runs, newest first and at most limit (0 means
	// DefaultLimit), that ran the file of kind named name, with the version
	// each ran, as VersionSpans says runs record it: an agent's invoke_agent
	// spans' agent_version, a workflow run's invoke_workflow root's
	// workflow_version. A run that ran the file at two versions is listed
	// once per version; a kind runs record no version of (a skill) lists
	// none.
	VersionUses(ctx context.Context, kind, name string, limit int) ([]VersionUse, error)
}

// VersionSpan is where runs record the version of one kind of file they
// ran: on spans of kind Span, which name the file by their Agent (when
// NameAttr is "") or by their attribute NameAttr, in their attribute
// VersionAttr.
type VersionSpan struct {
	Span        Kind
	NameAttr    string
	VersionAttr string
}

// VersionSpans are the kinds of file (Version.Kind) whose versions runs
// record. A skill's are not: a run reads skills, it does not run one file.
var VersionSpans = map[string]VersionSpan{
	"agent":    {Span: KindInvokeAgent, VersionAttr: semconv.AttrAgentVersion},
	"workflow": {Span: KindInvokeWorkflow, NameAttr: semconv.AttrWorkflow, VersionAttr: semconv.AttrWorkflowVersion},
}

// Ran reports whether sp ran the file named name, and the version it
// recorded ("" when none).
func (v VersionSpan) Ran(sp Span, name string) (string, bool) {
	ran := sp.Agent
	if v.NameAttr != "" {
		ran, _ = sp.Attributes[v.NameAttr].(string)
	}
	if sp.Kind != v.Span || ran != name {
		return "", false
	}
	h, _ := sp.Attributes[v.VersionAttr].(string)
	return h, true
}

// UsesByVersion hands each version of list (as Versions lists them,
// newest first) its runs among uses (as VersionUses lists them, newest
// first). A content listed twice (a restore of it) gets its runs at its
// newest listing only, since a run records the content, not the listing;
// a deletion has none, nor has any version the runs that recorded no
// version (made before versions were recorded).
func UsesByVersion(list []Version, uses []VersionUse) [][]VersionUse {
	byHash := map[string][]VersionUse{}
	for _, u := range uses {
		byHash[u.Hash] = append(byHash[u.Hash], u)
	}
	out := make([][]VersionUse, len(list))
	for i, v := range list {
		if !v.Deleted {
			out[i] = byHash[v.Hash]
			delete(byHash, v.Hash)
		}
	}
	return out
}

// CheckVersion returns ErrInvalid for a version a store cannot take.
func CheckVersion(v Version) error {
	switch {
	case v.Kind == "" || v.Name == "":
		return fmt.Errorf("%w: a version needs a kind and a name", ErrInvalid)
	case v.Deleted && (v.Hash != "" || len(v.Content) > 0):
		return fmt.Errorf("%w: a deletion has no content", ErrInvalid)
	case !v.Deleted && v.Hash == "":
		return fmt.Errorf("%w: version of %s %s has no hash", ErrInvalid, v.Kind, v.Name)
	}
	return nil
}

// CheckHashPrefix returns ErrInvalid for a lookup prefix that is too short
// or not hexadecimal.
func CheckHashPrefix(hash string) error {
	if len(hash) < MinHashPrefix {
		return fmt.Errorf("%w: version %q: give at least %d characters of its hash", ErrInvalid, hash, MinHashPrefix)
	}
	for _, r := range hash {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return fmt.Errorf("%w: version %q is not a hexadecimal hash", ErrInvalid, hash)
		}
	}
	return nil
}

// ShortHash is the first 12 characters of a version's hash, as listings
// show it.
func ShortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// RecordVersion adds v as the newest version of its file's name unless it
// is that already, with its Summary made by summarize from the content of
// the version before (nil for the first) and v's (nil for a deletion). A
// Summary v already has is a note put before it ("restore of 3f2a9c1d:
// description changed"). A deletion of a name never recorded is not
// recorded. It is the one way versions are added, for every source of a
// change.
func RecordVersion(ctx context.Context, vs VersionStore, v Version, summarize func(path string, before, after []byte) string) error {
	var before []byte
	prev, err := vs.LatestVersion(ctx, v.Kind, v.Name)
	switch {
	case err == nil && prev.Hash == v.Hash && prev.Deleted == v.Deleted:
		return nil // known already
	case err == nil && !prev.Deleted:
		before = prev.Content
	case err != nil && !errors.Is(err, ErrNotFound):
		return err
	case err != nil && v.Deleted:
		return nil // a file never recorded ends no history
	}
	after := v.Content
	if v.Deleted {
		after = nil
	}
	s := summarize(v.Path, before, after)
	if v.Summary != "" {
		s = v.Summary + ": " + s
	}
	v.Summary = s
	_, err = vs.AddVersion(ctx, v)
	return err
}
