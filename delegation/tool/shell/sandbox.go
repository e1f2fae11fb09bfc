package shell

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// mount is one filesystem operation of the sandbox: op is a bwrap option
// (--tmpfs, --bind, --ro-bind, --remount-ro); src is the bound host path,
// "" for the same path.
type mount struct{ op, src, path string }

// args is the mount as bwrap options.
func (m mount) args() []string {
	switch m.op {
	case "--bind", "--ro-bind":
		return []string{m.op, cmp.Or(m.src, m.path), m.path}
	}
	return []string{m.op, m.path}
}

// argv is the command line that runs command: bwrap ... bash -c command, or
// bash -c command itself without a sandbox. The sandbox holds for root
// (DESIGN §12): a user namespace of its own, in which no further one may
// be made, no capabilities, and the seccomp filter read from fd 4.
func (s *Shell) argv(command string, network bool) ([]string, error) {
	if s.cfg.Sandbox == SandboxNone {
		return []string{s.bash, "-c", "--", command}, nil
	}
	ms, err := s.mounts(network)
	if err != nil {
		return nil, err
	}
	a := []string{s.cfg.Bwrap,
		"--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--seccomp", "4",
		"--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--info-fd", "3",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
	}
	if !network {
		a = append(a, "--unshare-net")
	}
	for _, m := range ms {
		a = append(a, m.args()...)
	}
	a = append(a, "--chdir", s.cfg.Workspace, "--clearenv")
	for _, kv := range s.env() {
		k, v, _ := strings.Cut(kv, "=")
		a = append(a, "--setenv", k, v)
	}
	if s.rlimitInside {
		// Inside bwrap's user namespace RLIMIT_NPROC counts the sandbox's
		// processes only, so it caps them without touching the user's others.
		limit := fmt.Sprintf(`ulimit -u %d 2>/dev/null; exec "$0" -c -- "$1"`, s.cfg.MaxProcs)
		return append(a, "--", s.bash, "-c", limit, s.bash, command), nil
	}
	// "--": a line starting with - or + is a command, not more options.
	return append(a, "--", s.bash, "-c", "--", command), nil
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

// mounts are, outermost first, the sandbox's own tmpfs over /tmp,
// /var/tmp, $HOME and (without the network) /run, the writable workspace,
// and agentry's own state read-only or hidden (protect), so that a
// workspace under /tmp or $HOME stays visible, a $HOME under the
// workspace stays hidden, and state inside the workspace stays protected.
func (s *Shell) mounts(network bool) ([]mount, error) {
	ms := []mount{{op: "--tmpfs", path: "/tmp"}, {op: "--bind", path: s.cfg.Workspace}}
	private := []string{"/var/tmp"}
	if !network {
		private = append(private, "/run", "/var/run") // where services keep their sockets
	}
	if h := filepath.Clean(s.cfg.Home); s.cfg.Home != "" && h != "/" && h != "/tmp" {
		private = append(private, h)
	}
	hidden := []string{"/tmp"}
	for _, p := range private {
		if real, err := filepath.EvalSymlinks(p); err == nil && real != "/" && !slices.Contains(hidden, real) {
			hidden = append(hidden, real)
			ms = append(ms, mount{op: "--tmpfs", path: real})
		}
	}
	own, err := s.protect(hidden)
	if err != nil {
		return nil, err
	}
	ms = append(ms, own...)
	slices.SortStableFunc(ms, func(a, b mount) int { return len(a.path) - len(b.path) })
	return ms, nil
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
	return append([]string{"PATH=" + path, "HOME=" + home, "TMPDIR=/tmp", "LANG=C.UTF-8", "TERM=dumb", "USER=" + os.Getenv("USER")}, s.testEnv...)
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
	// The probe leaves the protected state alone: it creates nothing in the
	// workspace for a tool that may never run (protect.go).
	own := s.cfg.Protected
	s.cfg.Protected = nil
	argv, err := s.argv("true", false)
	s.cfg.Protected = own
	if err != nil {
		return err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	info, err := withInfo(cmd, false)
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
