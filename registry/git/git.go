// Package git reads the history of agent files kept in a git repository,
// with github.com/go-git/go-git/v5 (pure Go: no git binary needed), so an
// agent's History can show the file's commits beside agentry's own
// versions (docs/versions.md). It only reads; agentry never commits.
package git

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ErrNoRepository is returned for a folder that is not inside a git
// repository (or one without commits).
var ErrNoRepository = errors.New("not in a git repository")

// Commit is one commit that changed a file, and the file as it committed.
type Commit struct {
	Hash    string    `json:"hash"`
	Author  string    `json:"author"`
	Time    time.Time `json:"time"`
	Message string    `json:"message"` // its first line
	// Content is the file at this commit; nil when the commit deleted it.
	Content []byte `json:"-"`
}

// maxWalk bounds how many commits one History call reads, so a page of an
// agent in a repository with a long history stays quick.
const maxWalk = 5000

// History returns the commits of the repository that holds dir which
// changed file (relative to dir, slash-separated), newest first, at most
// limit (0 means 50), among the newest maxWalk commits. Commits are followed through first parents only, as
// `git log --first-parent` does, and a file's rename is not followed.
func History(dir, file string, limit int) ([]Commit, error) {
	if limit <= 0 {
		limit = 50
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	repo, err := gogit.PlainOpenWithOptions(abs, &gogit.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, gogit.ErrRepositoryNotExists) {
		return nil, ErrNoRepository
	}
	if err != nil {
		return nil, fmt.Errorf("open git repository of %s: %w", dir, err)
	}
	rel, err := pathInRepo(repo, abs, file)
	if err != nil {
		return nil, err
	}
	head, err := repo.Head()
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return nil, ErrNoRepository
	}
	if err != nil {
		return nil, fmt.Errorf("git history of %s: %w", file, err)
	}
	commit, err := repo.CommitObject(head.Hash())
	if err != nil {
		return nil, fmt.Errorf("git history of %s: %w", file, err)
	}
	var out []Commit
	for walked := 0; commit != nil && len(out) < limit && walked < maxWalk; walked++ {
		cur, err := fileIn(commit, rel)
		if err != nil {
			return nil, fmt.Errorf("git history of %s: %w", file, err)
		}
		parent, err := firstParent(commit)
		if err != nil {
			return nil, fmt.Errorf("git history of %s: %w", file, err)
		}
		var before *blobAt
		if parent != nil {
			if before, err = fileIn(parent, rel); err != nil {
				return nil, fmt.Errorf("git history of %s: %w", file, err)
			}
		}
		if !cur.same(before) {
			c := Commit{Hash: commit.Hash.String(), Author: commit.Author.Name, Time: commit.Author.When.UTC(),
				Message: strings.TrimSpace(firstLine(commit.Message))}
			if cur != nil {
				if c.Content, err = cur.read(); err != nil {
					return nil, fmt.Errorf("git history of %s: %w", file, err)
				}
			}
			out = append(out, c)
		}
		commit = parent
	}
	return out, nil
}

// pathInRepo is file's path relative to the repository's work tree.
func pathInRepo(repo *gogit.Repository, abs, file string) (string, error) {
	wt, err := repo.Worktree()
	if err != nil {
		return "", fmt.Errorf("git work tree of %s: %w", abs, err)
	}
	root, err := filepath.EvalSymlinks(wt.Filesystem.Root())
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, filepath.Join(real, filepath.FromSlash(file)))
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", fmt.Errorf("%s is outside the git work tree %s", file, root)
	}
	return filepath.ToSlash(rel), nil
}

// blobAt is a file's blob in one commit.
type blobAt struct{ f *object.File }

func fileIn(c *object.Commit, rel string) (*blobAt, error) {
	f, err := c.File(rel)
	if errors.Is(err, object.ErrFileNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &blobAt{f}, nil
}

// same reports whether two commits hold the same content (or both none).
func (b *blobAt) same(o *blobAt) bool {
	if b == nil || o == nil {
		return b == nil && o == nil
	}
	return b.f.Hash == o.f.Hash
}

func (b *blobAt) read() ([]byte, error) {
	r, err := b.f.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// firstParent is c's first parent; nil for a root commit and for the
// boundary of a shallow clone, whose parents are not there.
func firstParent(c *object.Commit) (*object.Commit, error) {
	if c.NumParents() == 0 {
		return nil, nil
	}
	p, err := c.Parent(0)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return nil, nil
	}
	return p, err
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
