package plugin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// GitTimeout bounds one git command; a clone of a plugin repository takes
// seconds, and an unreachable host should not hold an install for long.
const GitTimeout = 2 * time.Minute

// git runs git with args in dir (or the current folder) and returns its
// trimmed output; its error carries git's own message. No terminal prompt
// is ever shown: a repository that needs credentials fails instead.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, GitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=true", "SSH_ASKPASS=true")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			return "", fmt.Errorf("git is not installed: %w", err)
		}
		msg := strings.TrimSpace(errOut.String())
		if ctx.Err() != nil {
			msg = "timed out after " + GitTimeout.String()
		}
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", args[0], lastLine(msg))
	}
	return strings.TrimSpace(out.String()), nil
}

// lastLine keeps git's conclusion ("fatal: …"), not its progress lines.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// clone makes a shallow clone of url at ref (the default branch when ""),
// checked out at sha when given, into dir.
func clone(ctx context.Context, url, ref, sha, dir string) error {
	args := []string{"clone", "--quiet", "--depth", "1"}
	if sha != "" {
		args = []string{"clone", "--quiet"}
	}
	if ref != "" {
		args = append(args, "--branch", ref)
	}
	if _, err := git(ctx, "", append(args, "--", url, dir)...); err != nil {
		return err
	}
	if sha != "" {
		if _, err := git(ctx, dir, "checkout", "--quiet", sha); err != nil {
			return err
		}
	}
	return nil
}

// commitOf returns the commit checked out in dir, or "" when dir is not in
// a git repository.
func commitOf(ctx context.Context, dir string) string {
	c, err := git(ctx, dir, "rev-parse", "HEAD")
	if err != nil {
		return ""
	}
	return c
}

// IsGitURL reports whether src names a repository to clone rather than a
// local folder: a URL with a scheme, or scp-like git@host:path.
func IsGitURL(src string) bool {
	if strings.Contains(src, "://") {
		return true
	}
	at, colon := strings.Index(src, "@"), strings.Index(src, ":")
	return at > 0 && colon > at && !strings.Contains(src[:at], "/")
}
