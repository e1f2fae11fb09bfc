package shell

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// mount is one filesystem operation of the sandbox.
type mount struct{ op, path string }

// argv is the command line that runs command: bwrap ... bash -c command, or
// bash -c command itself without a sandbox.
func (s *Shell) argv(command string, network bool) []string {
	if s.cfg.Sandbox == SandboxNone {
		return []string{s.bash, "-c", command}
	}
	a := []string{s.cfg.Bwrap,
		"--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--info-fd", "3",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
	}
	if !network {
		a = append(a, "--unshare-net")
	}
	for _, m := range s.mounts() {
		a = append(a, m.op, m.path)
		if m.op == "--bind" {
			a = append(a, m.path)
		}
	}
	a = append(a, "--chdir", s.cfg.Workspace, "--clearenv")
	for _, kv := range s.env() {
		k, v, _ := strings.Cut(kv, "=")
		a = append(a, "--setenv", k, v)
	}
	if s.rlimitInside {
		// Inside bwrap's user namespace RLIMIT_NPROC counts the sandbox's
		// processes only, so it caps them without touching the user's others.
		limit := fmt.Sprintf(`ulimit -u %d 2>/dev/null; exec "$0" -c "$1"`, s.cfg.MaxProcs)
		return append(a, "--", s.bash, "-c", limit, s.bash, command)
	}
	return append(a, "--", s.bash, "-c", command)
}

// nprocBinds reports whether RLIMIT_NPROC set inside the sandbox caps it:
// not for root, whom the kernel exempts, and not under a setuid bwrap,
// which makes no user namespace, so the limit would count every process of
// the user.
func nprocBinds(bwrap string) bool {
	if os.Geteuid() == 0 {
		return false
	}
	fi, err := os.Stat(bwrap)
	return err == nil && fi.Mode()&os.ModeSetuid == 0
}

// mounts are the tmpfs over /tmp and $HOME and the writable workspace,
// outermost first, so that a workspace under /tmp or $HOME stays visible
// and a $HOME under the workspace stays hidden.
func (s *Shell) mounts() []mount {
	ms := []mount{{"--tmpfs", "/tmp"}, {"--bind", s.cfg.Workspace}}
	if h := filepath.Clean(s.cfg.Home); s.cfg.Home != "" && h != "/" && h != "/tmp" {
		ms = append(ms, mount{"--tmpfs", h})
	}
	slices.SortStableFunc(ms, func(a, b mount) int { return len(a.path) - len(b.path) })
	return ms
}

// env is the whole environment a command sees: agentry's own may hold API
// keys, so only what a shell needs is passed.
func (s *Shell) env() []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	home := s.cfg.Home
	if home == "" {
		home = "/tmp"
	}
	return []string{"PATH=" + path, "HOME=" + home, "TMPDIR=/tmp", "LANG=C.UTF-8", "TERM=dumb", "USER=" + os.Getenv("USER")}
}

// probe checks that bwrap exists and can build the sandbox here, so a
// machine that cannot gets a clear reason instead of failing every call.
func (s *Shell) probe() error {
	if s.cfg.Bwrap == "" {
		p, err := exec.LookPath("bwrap")
		if err != nil {
			return fmt.Errorf("bubblewrap (bwrap) is not installed, so commands cannot be sandboxed (install Debian's bubblewrap, or set shell: {sandbox: none} to run them unsandboxed)")
		}
		s.cfg.Bwrap = p
	}
	s.rlimitInside = nprocBinds(s.cfg.Bwrap)
	argv := s.argv("true", false)
	cmd := exec.Command(argv[0], argv[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	info, err := withInfo(cmd)
	if err != nil {
		return err
	}
	err = cmd.Start()
	info.started(err)
	if err == nil {
		err = cmd.Wait()
	}
	if err != nil {
		return fmt.Errorf("bubblewrap (%s) cannot create a sandbox here: %v: %s", s.cfg.Bwrap, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}
